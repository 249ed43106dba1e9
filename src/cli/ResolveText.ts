/** `payouts resolve`'s results and refusals (src/run/ResolveDecision.ts) worded: what was done, what stopped the decision, what to do next. */
import { quote } from "../api/Plausible.ts"
import type { Applied } from "../run/ResolveDecision.ts"
import type { ResolveRefusal, RowRefusal } from "../run/ResolveRefusal.ts"

export const rowRefusalText = (refusal: RowRefusal): string => {
  switch (refusal._tag) {
    case "NotUnknown":
      switch (refusal.decision) {
        case "Adopt":
          return `line ${refusal.line} is ${refusal.state}, not unknown: nothing to adopt`
        case "Resend":
          return `line ${refusal.line} is ${refusal.state}: only an unknown row can be resent`
        case "Abandon":
          return `line ${refusal.line} is ${refusal.state}: only an unknown row can be abandoned`
      }
    case "NoAlarm":
      return `line ${refusal.line} has no alarm to acknowledge`
    case "Halted":
      return `line ${refusal.line}: refused, the account is halted by ${refusal.by} (${refusal.reason}); lift it first with payouts halt --lift`
    case "Carried":
      return `line ${refusal.line}: refused, ${refusal.references.join(", ")} carries its token; adopt it instead`
    case "AccountAlarm":
      return `line ${refusal.line}: refused, the account alarm says the listing cannot prove absence (${refusal.alarm}); check the listing by hand and clear it with --listing-ok first`
    case "UnreadDays":
      return `line ${refusal.line}: refused, the listing of ${refusal.days.join(", ")} could not be read completely, so nothing proves its payout absent; look again later`
  }
}

/** Several rows' refusals are one a line. */
export const resolveRefusalText = (refusal: ResolveRefusal): string => {
  switch (refusal._tag) {
    case "Busy":
      return `batch ${refusal.batchId} is being run by another process; stop it (or wait for it to end) before resolving`
    case "LeaseLost":
      return `the batch's lease was taken by another process; nothing more is decided (look again with payouts resolve ${refusal.batchId})`
    case "NoneUnknown":
      return `no row of batch ${refusal.batchId} is unknown: nothing to decide`
    case "NoSuchLines": {
      const span = refusal.span === undefined ? "it has no rows" : `its rows are on lines ${refusal.span[0]} to ${refusal.span[1]}`
      return `no row on line${refusal.missing.length > 1 ? "s" : ""} ${refusal.missing.join(", ")} in batch ${refusal.batchId} (${span})`
    }
    case "NoRowsNamed":
      return "name the rows to decide: --line N, --lines 3,7-9 or --all-unknown"
    case "AdoptOneRow":
      return "--adopt takes one row (--line N): a reference is one payout"
    case "NeedsNoPerson":
      return refusal.rows.map((r) => `${r.unfit === undefined ? `line ${r.line} is ${r.state}` : rowRefusalText(r.unfit)} (it does not need a person)`).join("\n")
    case "Unfit":
      return refusal.rows.map(rowRefusalText).join("\n")
    case "StatusUnread":
      return `status of ${refusal.reference}: ${refusal.error}`
    case "NotThisPayout":
      return `${refusal.reference} is a ${refusal.type} of ${quote(refusal.amount)} ${quote(refusal.currency)}, not this row's payout`
    case "Implausible":
      return `${refusal.reference}: ${refusal.problem}; not adopted`
    case "TakenByAnother":
      return `${refusal.reference} already belongs to line ${refusal.line} of batch ${refusal.batchId}`
    case "ChangedMeanwhile":
      return `line ${refusal.line} changed meanwhile; look again`
  }
}

/** What a decision did to one row ("Done: ..."). */
export const appliedText = (a: Applied): string => {
  const what = ((): string => {
    switch (a.result) {
      case "adopted":
        return `adopted ${a.reference} (${a.status})`
      case "resent":
        return "anomaly" in a ? `resent, ${a.reference}; ALARM: ${a.anomaly}` : `resent, ${a.reference} (${a.status})`
      case "not-sent":
        return `the resend was not sent (${a.problem}); the row stays unknown`
      case "refused-by-service":
        return `the service refused the resend: ${a.problem}`
      case "no-answer":
        return `resent, but no answer (${a.problem}): it is unknown again`
      case "abandoned":
        return "abandoned (never retried automatically)"
      case "acknowledged":
        return "alarm acknowledged"
    }
  })()
  return `line ${a.line}: ${what}`
}
