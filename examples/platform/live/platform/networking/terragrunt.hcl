include "root" {
  path = find_in_parent_folders("root.hcl")
}

include "envcommon" {
  path = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/networking.hcl"
}

# The platform VPC hosts the shared services; four AZs instead of the default three.
inputs = {
  az_count = 4
}
