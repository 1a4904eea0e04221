# The platform environment: the management cluster (Argo CD, Keycloak, Grafana) that also drives preprod.
locals {
  environment  = "platform"
  account_id   = "111111111111"
  region       = "eu-west-1"
  cluster_name = "platform"
  vpc_cidr     = "10.10.0.0/16"
  domain       = "platform.example.com"
}
