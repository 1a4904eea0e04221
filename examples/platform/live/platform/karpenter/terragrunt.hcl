# Karpenter: node autoscaling for workloads. Its controller runs on the managed node groups.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

locals {
  iam_roles_dir = "../iam-roles"
}

dependency "eks" {
  config_path = "../eks"

  mock_outputs = {
    cluster_name = "mock"
    endpoint     = "https://mock.gr7.eu-west-1.eks.amazonaws.com"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

# A local feeding config_path, resolved against this unit's directory like a literal.
dependency "iam_roles" {
  config_path = local.iam_roles_dir

  mock_outputs = {
    exports = { karpenter_controller_role_arn = "arn:aws:iam::111111111111:role/mock" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependencies {
  paths = ["../node-groups"]
}

inputs = {
  name      = "karpenter"
  namespace = "karpenter"
  settings = {
    chart_version = "1.6.3"
    nodepools     = ["default", "arm64-spot"]
  }
  upstream = {
    cluster_name        = dependency.eks.outputs.cluster_name
    cluster_endpoint    = dependency.eks.outputs.endpoint
    controller_role_arn = dependency.iam_roles.outputs.exports.karpenter_controller_role_arn
  }
}
