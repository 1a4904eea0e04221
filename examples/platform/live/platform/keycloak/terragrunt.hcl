# Keycloak, the platform's identity provider, exposed through the public gateway.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "secret_stores" {
  config_path = "../secret-stores"

  mock_outputs = {
    exports = { cluster_secret_store = "aws-secrets-manager" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "gateway" {
  config_path = "../gateway"

  mock_outputs = {
    exports = { gateway_name = "public", hostname = "*.platform.example.com" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name      = "keycloak"
  namespace = "keycloak"
  settings = {
    chart_version = "25.2.0"
    database      = "cloudnative-pg"
  }
  upstream = {
    secret_store = dependency.secret_stores.outputs.exports.cluster_secret_store
    gateway      = dependency.gateway.outputs.exports.gateway_name
  }
  exports = {
    issuer_url = "https://sso.platform.example.com/realms/platform"
    admin_url  = "https://sso.platform.example.com/admin"
  }
}
