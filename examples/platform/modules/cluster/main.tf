# An EKS control plane, reduced to the values its dependents read (endpoint, OIDC issuer, CA, security group).
# endpoint_public_access is the switch a lockdown step flips (-var=endpoint_public_access=false); turning public
# access off is an endpoint update, which a busy control plane refuses on demand (busy_updates).

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

variable "busy_updates" {
  type        = number
  default     = 0
  description = "How many endpoint updates fail as on a control plane that is still busy with another update."
}

variable "busy_counter" {
  type        = string
  default     = ""
  description = "The file counting the endpoint updates failed so far (root.hcl puts it next to the unit's state)."
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

# Turning public access off, as EKS's UpdateClusterConfig does it. While fewer than busy_updates updates have failed,
# eks-update.sh fails like EKS when another update of the cluster is still running (ResourceInUseException first,
# then "update ... in progress"); a failed create taints the resource, so the next apply tries again. The script is
# the interpreter's argument and the cluster name the script's: no shell parses any value.
resource "terraform_data" "endpoint_update" {
  count = var.endpoint_public_access ? 0 : 1
  input = { endpoint_public_access = var.endpoint_public_access }

  provisioner "local-exec" {
    interpreter = ["sh", "${path.module}/eks-update.sh"]
    command     = var.cluster_name
    environment = {
      BUSY_UPDATES = tostring(var.busy_updates)
      BUSY_COUNTER = var.busy_counter
    }
  }

  depends_on = [terraform_data.cluster]
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
