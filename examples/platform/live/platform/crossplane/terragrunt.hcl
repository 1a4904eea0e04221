# Crossplane and its AWS provider. Its CRDs must exist before its own manifests apply: platctl's crd_two_stage
# hook would apply it in two passes on a real cluster.
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
    exports = { crossplane_role_arn = "arn:aws:iam::111111111111:role/mock" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependencies {
  paths = ["../eks-addons"]
}

inputs = {
  name      = "crossplane"
  namespace = "crossplane-system"
  settings = {
    chart_version = "2.0.2"
    providers     = ["provider-aws-s3", "provider-aws-rds"]
  }
  upstream = {
    cluster_name = dependency.eks.outputs.cluster_name
    role_arn     = dependency.iam_roles.outputs.exports.crossplane_role_arn
  }
}
