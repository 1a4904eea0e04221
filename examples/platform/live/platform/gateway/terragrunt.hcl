# The public Gateway API gateway, implemented by Cilium, with certificates for the platform zone.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

# Cilium serves the GatewayClass; nothing is read from it.
dependencies {
  paths = ["../cilium"]
}

dependency "dns" {
  config_path = "../dns"

  mock_outputs = {
    exports = { zone_name = "platform.example.com" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name      = "gateway"
  namespace = "gateway"
  settings = {
    gateway_class = "cilium"
    listeners     = ["https"]
  }
  upstream = {
    zone_name = dependency.dns.outputs.exports.zone_name
  }
  exports = {
    gateway_name = "public"
    hostname     = "*.${dependency.dns.outputs.exports.zone_name}"
  }
}
