include "root" {
  path = find_in_parent_folders("root.hcl")
}

include "envcommon" {
  path = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/node-groups.hcl"
}

# The platform cluster runs the shared services: a second, larger group. Replaces the envcommon settings.
inputs = {
  settings = {
    groups = {
      system   = { instance_types = ["m7g.large"], min_size = 2, max_size = 3, desired_size = 2 }
      services = { instance_types = ["m7g.xlarge"], min_size = 2, max_size = 6, desired_size = 3 }
    }
  }
}
