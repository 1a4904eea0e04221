/**
 * platctl's exit codes, in the bottom layer so that the layer that decides an ending (engine/'s status view, park/'s
 * command, report/'s source) names the code it means; cli/ only sets it.
 * The README's "Exit codes" lists them; they are the only numbers a verb returns.
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  /** `status` only: an environment is parked, and nothing else is wrong (README, exit codes). */
  parked: 4,
  /** An exception reached the top: a bug in platctl (EX_SOFTWARE in sysexits.h). */
  bug: 70,
  sigint: 130,
  sigterm: 143,
} as const;
