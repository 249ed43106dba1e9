/** The safeguards' settings and defaults: the run's, the CLI's flags and the tests' (Safeguards.ts acts on them). */
import { type GuardSettings, NO_GUARDS } from "../intake/Guards.ts"

export interface SafeguardSettings {
  /** The stop rule looks at the failure ratio only once this many rows are settled. */
  readonly stopMinSettled: number
  /** Pause the batch when failed / settled exceeds this (0..1). */
  readonly stopFailureRatio: number
  /** Hold an operator's rows after this many consecutive failures (0 = off). */
  readonly breakerFailures: number
  /**
   * Until one of an operator's payouts completes, at most `breakerFailures` of them are sent
   * (ProbeWindow.ts); after this long with no final status, its other rows are sent anyway.
   */
  readonly breakerProbeMs: number
  /** A sent row still without a final status after this long is listed as stuck. */
  readonly stuckAfterMs: number
  /** Ceilings on a mistake, checked at intake and before each POST (Guards.ts); off by default. */
  readonly guards: GuardSettings
}

export const DEFAULT_SAFEGUARDS: SafeguardSettings = {
  stopMinSettled: 20,
  stopFailureRatio: 0.5,
  breakerFailures: 5,
  breakerProbeMs: 120_000,
  stuckAfterMs: 3_600_000,
  guards: NO_GUARDS
}
