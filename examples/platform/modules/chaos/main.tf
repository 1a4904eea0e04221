# Failure and slowness on demand, for platctl's end-to-end tests and its demo. Every module of this example calls
# it. root.hcl turns four environment variables into its inputs (see docs/example-platform.md):
#   PLATCTL_EXAMPLE_FAIL="platform/cilium,preprod/eks"   these units fail (plan, apply and destroy)
#   PLATCTL_EXAMPLE_FAIL_APPLY="preprod/cilium"           these units fail partway through their apply
#   PLATCTL_EXAMPLE_DELAY="*=1,platform/eks=5"            these units sleep N seconds on create and on destroy
#   PLATCTL_EXAMPLE_DESTROY_DELAY="preprod/eks=300"       these units sleep N seconds on destroy only
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

variable "fail_apply" {
  type        = bool
  default     = false
  description = "Make the apply fail partway: one resource is created, the next one fails (plan and destroy work)."
}

variable "destroy_delay_seconds" {
  type        = number
  default     = 0
  description = "Seconds to sleep when the unit is destroyed (not when it is created)."

  validation {
    condition     = var.destroy_delay_seconds >= 0
    error_message = "destroy_delay_seconds cannot be negative."
  }
}

# A partial apply: `partial` (and `destroy_delay`, when asked for) is created and stays in state, then
# `apply_failure`'s provisioner fails (`false` as the interpreter, no shell), which fails the apply and leaves that
# resource tainted. Nothing of the module that calls chaos is created after it.
resource "terraform_data" "partial" {
  count = var.fail_apply ? 1 : 0
  input = var.unit_id
}

resource "terraform_data" "apply_failure" {
  count = var.fail_apply ? 1 : 0
  input = var.unit_id

  provisioner "local-exec" {
    interpreter = ["false"]
    command     = "${var.unit_id} fails partway on purpose: PLATCTL_EXAMPLE_FAIL_APPLY names it"
  }

  depends_on = [terraform_data.partial, terraform_data.destroy_delay]
}

# Sleeps on destroy only, with the seconds recorded at creation (a destroy-time provisioner reads only `self`).
resource "terraform_data" "destroy_delay" {
  count = var.destroy_delay_seconds > 0 ? 1 : 0
  input = var.destroy_delay_seconds

  provisioner "local-exec" {
    when        = destroy
    interpreter = ["sleep"]
    command     = tostring(self.input)
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
