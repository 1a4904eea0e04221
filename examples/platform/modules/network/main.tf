# A VPC with private and public subnets, reduced to the identifiers other units read. The ids are derived from the
# terraform_data id, which is only known after apply, so dependents see real (not mocked) values.

terraform {
  required_version = ">= 1.10"
}

variable "name" {
  type = string
}

variable "unit_id" {
  type = string
}

variable "cidr" {
  type        = string
  description = "The VPC CIDR block."

  validation {
    condition     = can(cidrhost(var.cidr, 0))
    error_message = "cidr must be a CIDR block such as 10.10.0.0/16."
  }
}

variable "az_count" {
  type    = number
  default = 3
}

variable "region" {
  type = string
}

variable "fail" {
  type    = bool
  default = false
}

variable "delay_seconds" {
  type    = number
  default = 0
}

variable "fail_apply" {
  type    = bool
  default = false
}

variable "destroy_delay_seconds" {
  type    = number
  default = 0
}

module "chaos" {
  source        = "../chaos"
  unit_id       = var.unit_id
  fail          = var.fail
  delay_seconds = var.delay_seconds

  fail_apply            = var.fail_apply
  destroy_delay_seconds = var.destroy_delay_seconds
}

resource "terraform_data" "vpc" {
  input = {
    name     = var.name
    cidr     = var.cidr
    az_count = var.az_count
  }

  depends_on = [module.chaos]
}

locals {
  seed = replace(terraform_data.vpc.id, "-", "")
  azs  = [for i in range(var.az_count) : "${var.region}${element(["a", "b", "c", "d", "e", "f"], i)}"]
}

output "vpc_id" {
  value = "vpc-${substr(local.seed, 0, 17)}"
}

output "vpc_cidr" {
  value = var.cidr
}

output "azs" {
  value = local.azs
}

output "private_subnet_ids" {
  value = [for i in range(var.az_count) : "subnet-${substr(sha1("${local.seed}-private-${i}"), 0, 17)}"]
}

output "public_subnet_ids" {
  value = [for i in range(var.az_count) : "subnet-${substr(sha1("${local.seed}-public-${i}"), 0, 17)}"]
}

output "private_subnet_cidrs" {
  value = [for i in range(var.az_count) : cidrsubnet(var.cidr, 4, i)]
}

output "public_subnet_cidrs" {
  value = [for i in range(var.az_count) : cidrsubnet(var.cidr, 4, i + 8)]
}
