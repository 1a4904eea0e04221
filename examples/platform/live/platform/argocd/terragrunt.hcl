# Argo CD on the platform cluster. It deploys to preprod too, so it registers the preprod cluster: a dependency
# across environments.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

locals {
  # Not get_repo_root(): that needs a git checkout, and this example is often copied to a temporary directory.
  live_dir = "${dirname(find_in_parent_folders("root.hcl"))}/live"
}

dependency "eks" {
  config_path = "../eks"

  mock_outputs = {
    cluster_name = "mock"
    endpoint     = "https://mock.gr7.eu-west-1.eks.amazonaws.com"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "keycloak_config" {
  config_path = "../keycloak-config"

  mock_outputs = {
    exports = {
      issuer_url       = "https://sso.platform.example.com/realms/platform"
      argocd_client_id = "argocd"
    }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "preprod_eks" {
  config_path = "${local.live_dir}/preprod/eks"

  mock_outputs = {
    cluster_name               = "preprod"
    endpoint                   = "https://mock.gr7.eu-west-1.eks.amazonaws.com"
    certificate_authority_data = "bW9jaw=="
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name      = "argocd"
  namespace = "argocd"
  settings = {
    chart_version = "8.3.0"
    accounts      = ["backstage"]
  }
  upstream = {
    cluster_endpoint         = dependency.eks.outputs.endpoint
    oidc_issuer_url          = dependency.keycloak_config.outputs.exports.issuer_url
    oidc_client_id           = dependency.keycloak_config.outputs.exports.argocd_client_id
    preprod_cluster_name     = dependency.preprod_eks.outputs.cluster_name
    preprod_cluster_endpoint = dependency.preprod_eks.outputs.endpoint
  }
  exports = {
    url = "https://argocd.platform.example.com"
  }
}
