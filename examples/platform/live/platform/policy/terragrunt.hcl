# Kyverno and the platform's admission policies.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "eks_addons" {
  config_path = "../eks-addons"

  mock_outputs = {
    upstream = { cluster_name = "mock" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name      = "policy"
  namespace = "kyverno"
  settings = {
    chart_version = "3.5.1"
    policies      = ["require-labels", "disallow-latest-tag", "restrict-image-registries"]
  }
  upstream = {
    cluster_name = dependency.eks_addons.outputs.upstream.cluster_name
  }
}
