# Realms, groups and OIDC clients inside Keycloak (the keycloak provider talks to the admin URL).
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "keycloak" {
  config_path = "../keycloak"

  mock_outputs = {
    exports = {
      issuer_url = "https://sso.platform.example.com/realms/platform"
      admin_url  = "https://sso.platform.example.com/admin"
    }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name = "keycloak-config"
  settings = {
    realm   = "platform"
    clients = ["argocd", "grafana", "backstage"]
  }
  upstream = {
    admin_url = dependency.keycloak.outputs.exports.admin_url
  }
  exports = {
    issuer_url       = dependency.keycloak.outputs.exports.issuer_url
    argocd_client_id = "argocd"
  }
}
