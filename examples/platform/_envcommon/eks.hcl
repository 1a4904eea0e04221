# The EKS control plane, shared by platform/eks and preprod/eks.
locals {
  env                = read_terragrunt_config(find_in_parent_folders("env.hcl")).locals
  kubernetes_version = "1.33"
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//cluster"
}

# A relative config_path in an included file resolves against the INCLUDING unit's directory: for live/preprod/eks
# this is live/preprod/networking, not _envcommon/../networking.
dependency "networking" {
  config_path = "../networking"

  # Mocks only where no real outputs can exist yet (plan before the first apply, destroy after a partial
  # bootstrap). apply always reads the real outputs.
  mock_outputs = {
    vpc_id             = "vpc-mock"
    private_subnet_ids = ["subnet-mock-a", "subnet-mock-b", "subnet-mock-c"]
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  cluster_name       = local.env.cluster_name
  kubernetes_version = local.kubernetes_version
  vpc_id             = dependency.networking.outputs.vpc_id
  subnet_ids         = dependency.networking.outputs.private_subnet_ids
}
