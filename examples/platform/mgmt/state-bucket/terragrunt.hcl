# The bucket that would hold every environment's Terraform state. Applied once, by hand, outside platctl: it lives
# outside both environment directories, so platctl never discovers it, and platform/iam-roles depends on it as an
# external dependency (skip_outputs, mock_outputs), which Terragrunt assumes is applied.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

inputs = {
  name = "state-bucket"
  settings = {
    versioning = true
    encryption = "aws:kms"
  }
  exports = {
    bucket_name = "111111111111-eu-west-1-tfstate"
  }
}
