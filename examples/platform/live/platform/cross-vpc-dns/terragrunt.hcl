# Route 53 Resolver rules so the platform and preprod VPCs resolve each other's private zones: a dependency on
# the other environment's networking.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "dns" {
  config_path = "../dns"

  mock_outputs = {
    exports = { private_zone_name = "platform.internal" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "networking" {
  config_path = "../networking"

  mock_outputs = {
    vpc_id = "vpc-mock"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

# find_in_parent_folders() also finds directories: searching upwards from this unit, the first parent holding a
# "preprod" entry is live/, so this is live/preprod/networking.
dependency "preprod_networking" {
  config_path = "${find_in_parent_folders("preprod")}/networking"

  mock_outputs = {
    vpc_id = "vpc-mock"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name = "cross-vpc-dns"
  settings = {
    private_zone = dependency.dns.outputs.exports.private_zone_name
  }
  upstream = {
    vpc_id         = dependency.networking.outputs.vpc_id
    preprod_vpc_id = dependency.preprod_networking.outputs.vpc_id
  }
}
