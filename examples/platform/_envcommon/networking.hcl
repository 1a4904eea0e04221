# The VPC, shared by every environment's networking unit. Values come from the environment's env.hcl, found from
# the including unit's directory (functions in an included file run in the including unit's context).
locals {
  env = read_terragrunt_config(find_in_parent_folders("env.hcl")).locals
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//network"
}

inputs = {
  name     = "${local.env.environment}-vpc"
  cidr     = local.env.vpc_cidr
  az_count = 3
}
