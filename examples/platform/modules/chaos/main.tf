# Failure and slowness on demand, for platctl's end-to-end tests and its demo. Every module of this example calls
# it. root.hcl turns two environment variables into its inputs (see docs/example-platform.md):
#   PLATCTL_EXAMPLE_FAIL="platform/cilium,preprod/eks"   these units fail (plan, apply and destroy)
#   PLATCTL_EXAMPLE_DELAY="*=1,platform/eks=5"            these units sleep N seconds on create and on destroy
# Nothing here talks to a provider: terraform_data is built into OpenTofu, so `tofu init` downloads nothing.

variable "unit_id" {
  type        = string
  description = "The platctl id of the unit (<env>/<path>), for the error message."
}

variable "fail" {
  type        = bool
  default     = false
  description = "Make every plan, apply and destroy of this unit fail."

  # A validation rather than a resource precondition: OpenTofu evaluates variable validations on destroy as well,
  # while resource preconditions are skipped when the resource is being destroyed.
  validation {
    condition     = !var.fail
    error_message = "${var.unit_id} fails on purpose: PLATCTL_EXAMPLE_FAIL names it. Remove it from PLATCTL_EXAMPLE_FAIL and run again."
  }
}

variable "delay_seconds" {
  type        = number
  default     = 0
  description = "Seconds to sleep when the unit is created and when it is destroyed."

  validation {
    condition     = var.delay_seconds >= 0
    error_message = "delay_seconds cannot be negative."
  }
}

# `sleep` runs as the interpreter, with the number as its only argument: no shell is involved.
resource "terraform_data" "delay" {
  count = var.delay_seconds > 0 ? 1 : 0
  input = var.delay_seconds

  provisioner "local-exec" {
    interpreter = ["sleep"]
    command     = tostring(self.input)
  }

  provisioner "local-exec" {
    when        = destroy
    interpreter = ["sleep"]
    command     = tostring(self.input)
  }
}

output "delayed_seconds" {
  value = var.delay_seconds
}
