/**
 * The lockdown of the engine fixture (tests/fixtures/engine/repos/basic) as the phase tests configure it: two steps
 * re-applying platform/dns and platform/eks, their lock and unlock arguments.
 */

/** The `steps:` of a `lockdown:` block, indented under it. */
export const LOCKDOWN_STEPS = `  steps:
    - id: split-dns
      unit: platform/dns
      lock_args: ["-var=split_dns=true"]
      unlock_args: ["-var=split_dns=false"]
    - id: private-endpoint
      unit: platform/eks
      lock_args: ["-var=public=false"]
      unlock_args: ["-var=public=true"]
`;

/** A whole `lockdown:` block for `.platctl.yaml`, with `extra` lines (indented by 2) before the steps. */
export function lockdownBlock(extra = ''): string {
  return `\nlockdown:\n  env: platform\n${extra}${LOCKDOWN_STEPS}`;
}
