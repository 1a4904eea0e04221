# Included by every unit (include "root" { path = find_in_parent_folders("root.hcl") }). Named root.hcl, not
# terragrunt.hcl, so Terragrunt never mistakes it for a unit. Everything here is evaluated in the including unit's
# context: get_terragrunt_dir() is the unit's directory, find_in_parent_folders() searches from it, and
# path_relative_to_include() is the unit's path from this file's directory (e.g. live/platform/eks).

locals {
  # The environment's settings: live/<env>/env.hcl, or mgmt/env.hcl for the management units.
  env = read_terragrunt_config(find_in_parent_folders("env.hcl")).locals

  # The unit's platctl id: its path below live/ (platform/eks), or below this directory for mgmt/ units.
  unit_id = trimprefix(path_relative_to_include(), "live/")

  # Failure and slowness on demand (modules/chaos): comma-separated unit ids, and id=seconds pairs where * is
  # every unit. Example: PLATCTL_EXAMPLE_FAIL=platform/cilium PLATCTL_EXAMPLE_DELAY='*=1,platform/eks=5'.
  fail_units = [for id in split(",", get_env("PLATCTL_EXAMPLE_FAIL", "")) : trimspace(id) if trimspace(id) != ""]
  delays = {
    for pair in split(",", get_env("PLATCTL_EXAMPLE_DELAY", "")) :
    trimspace(split("=", pair)[0]) => tonumber(trimspace(split("=", pair)[1]))
    if length(split("=", pair)) == 2
  }
  # Partial failures and destroy-only sleeps, the same shapes: PLATCTL_EXAMPLE_FAIL_APPLY=preprod/cilium
  # PLATCTL_EXAMPLE_DESTROY_DELAY=preprod/eks=300.
  fail_apply_units = [for id in split(",", get_env("PLATCTL_EXAMPLE_FAIL_APPLY", "")) : trimspace(id) if trimspace(id) != ""]
  destroy_delays = {
    for pair in split(",", get_env("PLATCTL_EXAMPLE_DESTROY_DELAY", "")) :
    trimspace(split("=", pair)[0]) => tonumber(trimspace(split("=", pair)[1]))
    if length(split("=", pair)) == 2
  }

  # A busy EKS control plane on demand (modules/cluster): unit id=count pairs. The unit's next <count> endpoint
  # updates fail as EKS fails an update while another one is running, then updates go through again. Example:
  # PLATCTL_EXAMPLE_BUSY=platform/eks=2. The count of failures so far is kept next to the unit's state.
  busy = {
    for pair in split(",", get_env("PLATCTL_EXAMPLE_BUSY", "")) :
    trimspace(split("=", pair)[0]) => tonumber(trimspace(split("=", pair)[1]))
    if length(split("=", pair)) == 2
  }
}

# State stays on the local disk, next to each unit (live/platform/eks/terraform.tfstate), so the example applies
# offline with no bucket. A real platform would use backend "s3" here with the state_bucket of .platctl.yaml.
# The path is absolute: Terragrunt runs OpenTofu inside .terragrunt-cache/, and a relative path would put the
# state in that throw-away copy.
remote_state {
  backend = "local"
  generate = {
    path      = "backend.tf"
    if_exists = "overwrite_terragrunt"
  }
  config = {
    path = "${get_terragrunt_dir()}/terraform.tfstate"
  }
}

# Inputs every module understands (OpenTofu ignores TF_VAR_ values of variables a module does not declare).
inputs = {
  env                   = local.env.environment
  region                = local.env.region
  unit_id               = local.unit_id
  fail                  = contains(local.fail_units, local.unit_id)
  delay_seconds         = lookup(local.delays, local.unit_id, lookup(local.delays, "*", 0))
  fail_apply            = contains(local.fail_apply_units, local.unit_id)
  destroy_delay_seconds = lookup(local.destroy_delays, local.unit_id, 0)
  busy_updates          = lookup(local.busy, local.unit_id, 0)
  busy_counter          = "${get_terragrunt_dir()}/terraform.busy-count"
  tags = {
    Environment = local.env.environment
    ManagedBy   = "terragrunt"
    Unit        = local.unit_id
  }
}
