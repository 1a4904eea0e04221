# An EKS control plane, reduced to the values its dependents read (endpoint, OIDC issuer, CA, security group).
# endpoint_public_access is the switch a lockdown step flips (-var=endpoint_public_access=false).

terraform {
  required_version = ">= 1.10"
}

variable "cluster_name" {
  type = string
}

variable "unit_id" {
  type = string
}

variable "region" {
  type = string
}

variable "kubernetes_version" {
  type    = string
  default = "1.33"
}

variable "vpc_id" {
  type = string
}

variable "subnet_ids" {
  type = list(string)

  validation {
    condition     = length(var.subnet_ids) >= 2
    error_message = "EKS needs subnets in at least two availability zones."
  }
}

variable "cluster_role_arn" {
  type    = string
  default = ""
}

variable "endpoint_public_access" {
  type    = bool
  default = true
}

variable "fail" {
  type    = bool
  default = false
}

variable "delay_seconds" {
  type    = number
  default = 0
}

module "chaos" {
  source        = "../chaos"
  unit_id       = var.unit_id
  fail          = var.fail
  delay_seconds = var.delay_seconds
}

resource "terraform_data" "cluster" {
  input = {
    name                   = var.cluster_name
    version                = var.kubernetes_version
    vpc_id                 = var.vpc_id
    subnet_ids             = var.subnet_ids
    role_arn               = var.cluster_role_arn
    endpoint_public_access = var.endpoint_public_access
  }

  depends_on = [module.chaos]
}

locals {
  # 32 upper-case hex characters, the shape of an EKS endpoint / OIDC id.
  hex = upper(replace(terraform_data.cluster.id, "-", ""))
}

output "cluster_name" {
  value = var.cluster_name
}

output "kubernetes_version" {
  value = var.kubernetes_version
}

output "endpoint" {
  value = "https://${local.hex}.gr7.${var.region}.eks.amazonaws.com"
}

output "oidc_issuer_url" {
  value = "https://oidc.eks.${var.region}.amazonaws.com/id/${local.hex}"
}

output "certificate_authority_data" {
  value = base64encode("example certificate authority of ${var.cluster_name} (${terraform_data.cluster.id})")
}

output "cluster_security_group_id" {
  value = "sg-${substr(lower(local.hex), 0, 17)}"
}

output "endpoint_public_access" {
  value = var.endpoint_public_access
}
