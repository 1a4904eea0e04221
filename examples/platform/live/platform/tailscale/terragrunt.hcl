# A Tailscale subnet router into the platform VPC; its auth key comes from the secret store.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "networking" {
  config_path = "../networking"

  mock_outputs = {
    vpc_cidr = "10.0.0.0/16"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "secret_stores" {
  config_path = "../secret-stores"

  mock_outputs = {
    exports = { cluster_secret_store = "aws-secrets-manager" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name      = "tailscale"
  namespace = "tailscale"
  settings = {
    advertise_routes = [dependency.networking.outputs.vpc_cidr]
    auth_key_ref     = "/platform/tailscale/authkey"
  }
  upstream = {
    vpc_cidr     = dependency.networking.outputs.vpc_cidr
    secret_store = dependency.secret_stores.outputs.exports.cluster_secret_store
  }
}
