# A generic platform component: a Helm release, an IAM bundle, a set of Kubernetes objects. It records what it was
# given (its settings and the values it read from its dependencies) in a terraform_data resource, so a unit's
# state shows exactly which upstream outputs reached it, and it exports values for its own dependents.

terraform {
  required_version = ">= 1.10"
}

variable "name" {
  type        = string
  description = "The component's name, e.g. argocd."
}

variable "env" {
  type        = string
  description = "The environment (from env.hcl through root.hcl)."
}

variable "unit_id" {
  type        = string
  description = "The platctl id of the unit (<env>/<path>), set by root.hcl."
}

variable "namespace" {
  type        = string
  default     = ""
  description = "The Kubernetes namespace, when the component lives in a cluster."
}

variable "settings" {
  type        = any
  default     = {}
  description = "Component-specific settings (chart version, replicas, ...), recorded as JSON."
}

variable "upstream" {
  type        = map(string)
  default     = {}
  description = "Values read from dependencies' outputs; recorded in state so the flow can be checked."
}

variable "exports" {
  type        = map(string)
  default     = {}
  description = "Values this component publishes for its dependents."
}

variable "crds" {
  type        = list(string)
  default     = []
  description = "CustomResourceDefinitions the component installs before its own objects (crd_two_stage targets them)."
}

variable "force_destroy" {
  type        = bool
  default     = false
  description = "Destroy even when the component still holds data (images, objects); set by teardown_args."
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

# The component's CRDs, separate from its release so a crd_two_stage hook can apply them alone first
# (-target=terraform_data.crds), as a real unit applies its CRD chart before the custom resources that need it.
resource "terraform_data" "crds" {
  count = length(var.crds) > 0 ? 1 : 0
  input = var.crds
}

resource "terraform_data" "release" {
  input = {
    name          = var.name
    namespace     = var.namespace
    settings      = jsonencode(var.settings)
    upstream      = var.upstream
    force_destroy = var.force_destroy
  }

  depends_on = [module.chaos, terraform_data.crds]
}

output "id" {
  description = "A value unknown until apply: a downstream state holding it proves outputs really flowed."
  value       = terraform_data.release.id
}

output "name" {
  value = var.name
}

output "namespace" {
  value = var.namespace
}

output "release" {
  description = "<name>-<first 8 characters of the id>, like a Helm release revision."
  value       = "${var.name}-${substr(terraform_data.release.id, 0, 8)}"
}

output "upstream" {
  value = var.upstream
}

output "exports" {
  value = var.exports
}
