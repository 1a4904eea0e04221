# External Secrets Operator. Its admission webhook needs CoreDNS (eks-addons) to be running.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "eks" {
  config_path = "../eks"

  mock_outputs = {
    cluster_name = "mock"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "iam_roles" {
  config_path = "../iam-roles"

  mock_outputs = {
    exports = { external_secrets_role_arn = "arn:aws:iam::111111111111:role/mock" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependencies {
  paths = ["../eks-addons"]
}

inputs = {
  name      = "external-secrets"
  namespace = "external-secrets"
  settings = {
    chart_version = "0.19.2"
  }
  upstream = {
    cluster_name = dependency.eks.outputs.cluster_name
    role_arn     = dependency.iam_roles.outputs.exports.external_secrets_role_arn
  }
  exports = {
    service_account = "external-secrets/external-secrets"
  }
}
