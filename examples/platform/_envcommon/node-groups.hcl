# EKS managed node groups. Nodes that join before the CNI is installed stay NotReady, so node-groups must come
# after cilium; nothing here reads cilium's outputs, so that order is declared in .platctl.yaml (implicit_deps).
terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "eks" {
  config_path = "../eks"

  mock_outputs = {
    cluster_name = "mock"
    endpoint     = "https://mock.gr7.eu-west-1.eks.amazonaws.com"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "networking" {
  config_path = "${get_terragrunt_dir()}/../networking"

  mock_outputs = {
    private_subnet_ids = ["subnet-mock-a", "subnet-mock-b", "subnet-mock-c"]
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name = "node-groups"
  settings = {
    groups = {
      system = { instance_types = ["m7g.large"], min_size = 2, max_size = 3, desired_size = 2 }
    }
  }
  upstream = {
    cluster_name     = dependency.eks.outputs.cluster_name
    cluster_endpoint = dependency.eks.outputs.endpoint
    subnet_ids       = join(",", dependency.networking.outputs.private_subnet_ids)
  }
}
