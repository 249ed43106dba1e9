/** `payouts retry`'s refusals and what it leaves out (src/run/RetryBatch.ts) worded: what happened, and what to do next. */
import type { LeftOut, RetryRefusal } from "../run/RetryBatch.ts"

export const leftOutText = (left: LeftOut): string =>
  [
    left.inDoubt > 0 ? `${left.inDoubt} unknown or abandoned` : "",
    left.alarmed > 0 ? `${left.alarmed} under alarm` : "",
    left.resent > 0 ? `${left.resent} resent after an unknown outcome` : "",
    (left.fixed ?? 0) > 0 ? `${left.fixed} paid again by a retry --fix batch` : ""
  ].filter((part) => part !== "").join(", ")

export const retryRefusalText = (refusal: RetryRefusal): string => {
  switch (refusal._tag) {
    case "NotFinished":
      return `batch ${refusal.batchId} still has ${refusal.open} row(s) not final (waiting, sending or pending): run it to its end first (payouts run ${refusal.fileName})`
    case "NothingToRetry": {
      const left = leftOutText(refusal.leftOut)
      return `batch ${refusal.batchId} has no failed, cancelled or expired row to pay again${left === "" ? "" : ` (left to a person, never retried: ${left})`}`
    }
    case "TakenMeanwhile":
      return `${refusal.rows} row(s) of batch ${refusal.batchId} were paid again meanwhile by another batch (${refusal.by}); run payouts retry again`
    case "AlreadyRetried":
      return `batch ${refusal.batchId} was already retried as batch ${refusal.child} (retry generation ${refusal.generation}); what failed there is retried with: payouts retry ${refusal.child}`
    case "RetryOfAnother":
      return `this retry's file is already the retry of batch ${refusal.parent}`
    case "FileInTheWay":
      return `${refusal.file} exists and is not this retry's file: move it away and run payouts retry again`
    case "FixChanged":
      return `${refusal.file} changed while it was read: run payouts retry again`
    case "FixRefused":
      return `${refusal.file} is refused: nothing is paid`
    case "FixLinesRefused":
      return `${refusal.file}: ${refusal.lines} line(s) refused: nothing is paid`
  }
}
