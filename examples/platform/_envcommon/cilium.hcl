# Cilium as the CNI (ENI IPAM, kube-proxy replacement), shared by both environments. The cluster must exist and
# the pod subnets are the VPC's private subnets.
locals {
  chart_version = "1.18.2"
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

# get_terragrunt_dir() in an included file is the including unit's directory: the same edge as "../eks", spelled
# the way root-level files usually spell it.
dependency "eks" {
  config_path = "${get_terragrunt_dir()}/../eks"

  mock_outputs = {
    cluster_name = "mock"
    endpoint     = "https://mock.gr7.eu-west-1.eks.amazonaws.com"
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

dependency "networking" {
  config_path = "${get_terragrunt_dir()}/../networking"

  mock_outputs = {
    vpc_id               = "vpc-mock"
    private_subnet_cidrs = ["10.0.0.0/20"]
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name      = "cilium"
  namespace = "kube-system"
  crds      = ["ciliumnetworkpolicies.cilium.io", "ciliumclusterwidenetworkpolicies.cilium.io"]
  settings = {
    chart_version          = local.chart_version
    ipam_mode              = "eni"
    kube_proxy_replacement = true
    pod_subnets            = dependency.networking.outputs.private_subnet_cidrs
  }
  upstream = {
    cluster_name     = dependency.eks.outputs.cluster_name
    cluster_endpoint = dependency.eks.outputs.endpoint
    vpc_id           = dependency.networking.outputs.vpc_id
  }
}
