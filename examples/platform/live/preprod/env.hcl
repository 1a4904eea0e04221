# The pre-production environment: a workload cluster registered in the platform's Argo CD.
locals {
  environment  = "preprod"
  account_id   = "222222222222"
  region       = "eu-west-1"
  cluster_name = "preprod"
  vpc_cidr     = "10.20.0.0/16"
  domain       = "preprod.example.com"
}
