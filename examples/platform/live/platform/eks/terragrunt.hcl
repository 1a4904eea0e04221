include "root" {
  path = find_in_parent_folders("root.hcl")
}

include "envcommon" {
  path   = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/eks.hcl"
  expose = true
}

# On top of the shared networking dependency: the platform cluster runs with a role from iam-roles.
dependency "iam_roles" {
  config_path = "../iam-roles"

  mock_outputs = {
    exports = { eks_cluster_role_arn = "arn:aws:iam::111111111111:role/mock" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  cluster_role_arn = dependency.iam_roles.outputs.exports.eks_cluster_role_arn
  # The lockdown phase re-applies with -var=endpoint_public_access=false.
  endpoint_public_access = true
}
