/** How a row's wait (src/run/WaitReason.ts) is told in `payouts run`'s notices. */
import type { WaitReason } from "../run/WaitReason.ts"

export const waitText = (reason: WaitReason): string => {
  switch (reason._tag) {
    case "ClockUnknown":
      return "the service's clock is not known yet (no Date header)"
    case "ClockSkew":
      return `the service's clock differs from ours by ${reason.seconds} s`
    case "OtherRunner":
      return "its intent was written by another runner that may still send it"
    case "DayUnknown":
      return "the sandbox declared its clock only after this request: its day there cannot be told"
    case "DaysIncomplete":
      return `the listing of ${reason.days.join(", ")} could not be read completely`
    case "Misplaced":
      return `the sandbox's declared clock does not place ${reason.count} of our payouts on the days the listing shows (e.g. ${reason.example})`
    case "Lagging":
      return `${reason.count} of our earlier payouts are not listed yet (e.g. ${reason.example}): the listing lags`
    case "FewWitnesses":
      return `${reason.listed} of ${reason.needed} witness payouts listed`
    case "NoLaterWitness":
      return "no payout of ours answered after this request ended is listed yet"
    case "Grace":
      return "within the reconcile grace"
    case "SecondSync":
      return "waiting for a second listing sync half a grace after the first"
  }
}
