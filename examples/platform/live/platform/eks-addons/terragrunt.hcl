include "root" {
  path = find_in_parent_folders("root.hcl")
}

include "envcommon" {
  path   = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/eks-addons.hcl"
  expose = true
}

dependency "eks" {
  config_path = include.envcommon.locals.eks_dir

  mock_outputs = {
    cluster_name    = "mock"
    oidc_issuer_url = "https://oidc.eks.eu-west-1.amazonaws.com/id/MOCK"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

# The EBS CSI driver's pod identity role must exist first. Its ARN follows the naming convention, so nothing is
# read: an ordering-only edge, added to envcommon's ../node-groups.
dependencies {
  paths = ["../iam-roles"]
}

inputs = {
  upstream = {
    cluster_name    = dependency.eks.outputs.cluster_name
    oidc_issuer_url = dependency.eks.outputs.oidc_issuer_url
  }
}
