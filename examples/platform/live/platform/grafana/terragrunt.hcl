# Grafana. Single sign-on through Keycloak is not switched on yet: the keycloak dependency is disabled, which
# removes the edge (Terragrunt gives it its mock outputs instead).
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

locals {
  sso_enabled = false
}

dependency "keycloak" {
  config_path = "../keycloak"
  enabled     = local.sso_enabled

  mock_outputs = {
    exports = { issuer_url = "" }
  }
}

dependency "secret_stores" {
  config_path = "../secret-stores"

  mock_outputs = {
    exports = { cluster_secret_store = "aws-secrets-manager" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

# Dashboards persist on EBS volumes: the CSI driver comes with eks-addons.
dependencies {
  paths = ["../eks-addons"]
}

inputs = {
  name      = "grafana"
  namespace = "observability"
  settings = {
    chart_version = "10.0.0"
    sso           = local.sso_enabled
  }
  upstream = {
    secret_store    = dependency.secret_stores.outputs.exports.cluster_secret_store
    oidc_issuer_url = dependency.keycloak.outputs.exports.issuer_url
  }
}
