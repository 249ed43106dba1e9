/**
 * Why a row in doubt is neither adopted, resent nor alarmed yet (ResendRules' `Wait`): facts, worded
 * by the command line (src/cli/WaitText.ts). Equal by value, so a run tells a row's wait once.
 */
import { Data } from "effect"

export type WaitReason = Data.TaggedEnum<{
  /** No Date header seen yet: the service's clock is unknown. */
  ClockUnknown: {}
  /** Our clock and the service's differ by more than rule 7 allows (whole seconds, signed). */
  ClockSkew: { readonly seconds: number }
  /** Rule 5: another runner wrote the intent and may still send it. */
  OtherRunner: {}
  /** The sandbox declared its clock only after the request: its day there cannot be told. */
  DayUnknown: {}
  /** Rule 1: these days' listings were not read completely. */
  DaysIncomplete: { readonly days: ReadonlyArray<string> }
  /** The declared clock does not place `count` of our payouts on their listed days. */
  Misplaced: { readonly count: number; readonly example: string }
  /** `count` of our earlier payouts are not listed yet: the listing lags. */
  Lagging: { readonly count: number; readonly example: string }
  /** Rule 2: too few witnesses listed. */
  FewWitnesses: { readonly listed: number; readonly needed: number }
  NoLaterWitness: {}
  /** Rule 3: within the reconcile grace. */
  Grace: {}
  /** Rule 4: a second sync half a grace after the first is still to come. */
  SecondSync: {}
}>

export const WaitReason = Data.taggedEnum<WaitReason>()
