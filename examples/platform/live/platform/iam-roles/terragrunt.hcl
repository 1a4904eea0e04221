# The IAM roles every other unit assumes or attaches. Never destroyed by teardown (units.platform/iam-roles
# .teardown_skip in .platctl.yaml): it is the floor the platform is rebuilt on.
include "root" {
  path   = find_in_parent_folders("root.hcl")
  expose = true
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

locals {
  account_id = include.root.locals.env.account_id
  prefix     = "arn:aws:iam::${local.account_id}:role/platform"
}

# An external dependency: mgmt/ is outside both environment directories, applied once by hand. skip_outputs: its
# state is not read (it lives in another account); the mock is what the inputs see. The edge still exists.
dependency "state_bucket" {
  config_path  = "${dirname(find_in_parent_folders("root.hcl"))}/mgmt/state-bucket"
  skip_outputs = true

  mock_outputs = {
    exports = { bucket_name = "111111111111-eu-west-1-tfstate" }
  }
}

inputs = {
  name = "iam-roles"
  settings = {
    roles        = ["eks-cluster", "eks-node", "karpenter-controller", "external-secrets", "crossplane", "ebs-csi", "ci-ecr-push"]
    state_bucket = dependency.state_bucket.outputs.exports.bucket_name
  }
  exports = {
    eks_cluster_role_arn          = "${local.prefix}-eks-cluster"
    node_role_arn                 = "${local.prefix}-eks-node"
    karpenter_controller_role_arn = "${local.prefix}-karpenter-controller"
    external_secrets_role_arn     = "${local.prefix}-external-secrets"
    crossplane_role_arn           = "${local.prefix}-crossplane"
    ebs_csi_role_arn              = "${local.prefix}-ebs-csi"
    ci_push_role_arn              = "${local.prefix}-ci-ecr-push"
  }
}
