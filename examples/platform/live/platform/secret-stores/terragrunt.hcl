# ClusterSecretStores backed by AWS Secrets Manager and SSM Parameter Store.
include "root" {
  path = find_in_parent_folders("root.hcl")
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "external_secrets" {
  config_path = "../external-secrets"

  mock_outputs = {
    release = "external-secrets-mock"
    exports = { service_account = "external-secrets/external-secrets" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name = "secret-stores"
  settings = {
    stores = ["aws-secrets-manager", "aws-parameter-store"]
  }
  upstream = {
    operator_release = dependency.external_secrets.outputs.release
    service_account  = dependency.external_secrets.outputs.exports.service_account
  }
  exports = {
    cluster_secret_store = "aws-secrets-manager"
  }
}
