# The management account: bootstrap resources created once, by hand, before platctl ever runs. platctl does not
# scan this directory; units in live/ that depend on mgmt/ units treat them as already applied.
locals {
  environment  = "mgmt"
  account_id   = "333333333333"
  region       = "eu-west-1"
  cluster_name = ""
  vpc_cidr     = ""
  domain       = "example.com"
}
