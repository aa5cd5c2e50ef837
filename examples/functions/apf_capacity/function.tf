# Show in the plan what a new priority level does to the capacity of every
# level: the API server divides its concurrency limit (600 by default) among
# ALL levels in proportion to their nominal concurrency shares, so adding
# shares to one level takes seats from the others.

# The 8 levels the API server creates at startup, read from the cluster.
locals {
  bootstrap_levels = [
    "exempt", "catch-all", "system", "node-high", "leader-election",
    "workload-high", "workload-low", "global-default",
  ]
}

data "kubeinfer_priority_level_configuration" "bootstrap" {
  count    = length(local.bootstrap_levels)
  metadata = { name = local.bootstrap_levels[count.index] }
}

# The level this configuration adds.
resource "kubeinfer_priority_level_configuration" "inference" {
  metadata = { name = "inference" }
  spec = {
    type = "Limited"
    limited = {
      nominal_concurrency_shares = 50
      lendable_percent           = 10
      borrowing_limit_percent    = 100
      limit_response             = { type = "Reject" }
    }
  }
}

locals {
  # Every attribute of a level must be present; null means the server default
  # (shares 30, lendable 0) or, for borrowing_limit_percent, unlimited.
  apf_levels = concat(
    [for l in data.kubeinfer_priority_level_configuration.bootstrap : {
      name                       = l.metadata.name
      type                       = l.spec.type
      nominal_concurrency_shares = try(l.spec.limited.nominal_concurrency_shares, l.spec.exempt.nominal_concurrency_shares)
      lendable_percent           = try(l.spec.limited.lendable_percent, l.spec.exempt.lendable_percent)
      borrowing_limit_percent    = try(l.spec.limited.borrowing_limit_percent, null)
    }],
    [{
      name                       = kubeinfer_priority_level_configuration.inference.metadata.name
      type                       = kubeinfer_priority_level_configuration.inference.spec.type
      nominal_concurrency_shares = kubeinfer_priority_level_configuration.inference.spec.limited.nominal_concurrency_shares
      lendable_percent           = kubeinfer_priority_level_configuration.inference.spec.limited.lendable_percent
      borrowing_limit_percent    = kubeinfer_priority_level_configuration.inference.spec.limited.borrowing_limit_percent
    }],
  )
}

# One entry per level: nominal_cl (seats it owns), lendable_cl (seats others
# may borrow from it) and borrowing_cl (seats it may borrow; null = unlimited).
output "apf_capacity" {
  value = {
    for c in provider::kubeinfer::apf_capacity(600, local.apf_levels) : c.name => c
  }
}
