# Container registries. Repositories that still hold images refuse to be deleted: teardown passes
# -var=force_destroy=true (units.platform/ecr.teardown_args in .platctl.yaml).
include "root" {
  path   = find_in_parent_folders("root.hcl")
  expose = true
}

terraform {
  source = "${dirname(find_in_parent_folders("root.hcl"))}/modules//component"
}

dependency "iam_roles" {
  config_path = "../iam-roles"

  mock_outputs = {
    exports = { ci_push_role_arn = "arn:aws:iam::111111111111:role/mock" }
  }
  mock_outputs_allowed_terraform_commands = ["init", "validate", "plan", "state", "destroy"]
}

inputs = {
  name = "ecr"
  settings = {
    repositories = ["platform/backstage", "platform/ci-runner", "mirror/cilium"]
    scan_on_push = true
  }
  upstream = {
    push_role_arn = dependency.iam_roles.outputs.exports.ci_push_role_arn
  }
  exports = {
    registry = "${include.root.locals.env.account_id}.dkr.ecr.${include.root.locals.env.region}.amazonaws.com"
  }
}
