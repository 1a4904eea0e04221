# The public zone (delegated from the mgmt account's example.com) and a private zone attached to the VPC.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "networking" {
  config_path = "../networking"

  mock_outputs = {
    vpc_id = "vpc-mock"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name = "dns"
  settings = {
    public_zone  = "platform.example.com"
    private_zone = "platform.internal"
  }
  upstream = {
    vpc_id = dependency.networking.outputs.vpc_id
  }
  exports = {
    zone_name         = "platform.example.com"
    private_zone_name = "platform.internal"
  }
}
