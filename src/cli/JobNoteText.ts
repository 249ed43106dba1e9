/** The jobs' notes and refusals for people (jobs/JobNotes.ts) worded: what happened, and what to do next. */
import { Layer } from "effect"
import { basename } from "node:path"
import { visible } from "../domain/Text.ts"
import { type JobNote, JobNotes, type PolicyRefusal, type Refusal } from "../jobs/JobNotes.ts"
import { appliedText, resolveRefusalText } from "./ResolveText.ts"
import { serviceTroubleText } from "./ServiceText.ts"

export const policyRefusalText = (why: PolicyRefusal): string => {
  switch (why._tag) {
    case "NotAnApprover":
      return `${why.by} may not approve: the approvers are ${why.approvers.join(", ")} (watch --approvers / PAYOUTS_APPROVERS)`
    case "NoSubmitter":
      return "four eyes: the batch does not say who submitted it, so no approval can prove a second person"
    case "OwnBatch":
      return `four eyes: ${why.by} submitted this batch; another person must approve it`
    case "Unsigned":
      return "the approval names no approver or no approved totals"
  }
}

export const refusalText = (refusal: Refusal): string => {
  switch (refusal._tag) {
    case "IdTooShort":
      return `batch id "${refusal.id}" is too short: give at least 4 characters`
    case "NotWaiting":
      return `no batch ${refusal.id} is waiting for approval in ${refusal.folder}`
    case "Ambiguous":
      return `"${refusal.id}" matches ${refusal.matches} batches waiting for approval: give more of the id`
    case "NotAName":
      return `${refusal.flag}: "${refusal.text}" is not a name (1 to 100 printable characters, no comma)`
    case "Policy":
      return `not approved: ${policyRefusalText(refusal.why)}`
    case "Edited":
      return `${jobNoteText(refusal.note)} Approve the new batch once the watcher has put it up (payouts approve NEW_ID --by NAME).`
    case "NoReason":
      return "a decision needs a reason: why is recorded for whoever looks next"
    case "NoJobFolder":
      return "this console was started without a job folder"
  }
}

export const jobNoteText = (note: JobNote): string => {
  switch (note._tag) {
    case "NeedsPerson":
      return [
        `Batch ${note.batchId} (${basename(note.file)}) needs a person: its remaining rows cannot be settled automatically.`,
        ...note.reasons.map((r) => `  ${r}`),
        "",
        `See the evidence:   payouts resolve ${note.batchId}`,
        `Then decide a row:  payouts resolve ${note.batchId} --line N --by NAME (--adopt REFERENCE | --resend | --abandon) --reason TEXT (--lines 3,7-9 or --all-unknown: several at once)`,
        `After checking the listing by hand: payouts resolve ${note.batchId} --listing-ok --by NAME --reason TEXT`,
        "Move the file back into the jobs folder's processing/ (or run it with payouts run) to finish the batch."
      ].join("\n")
    case "FileChanged":
      return [
        `Batch ${note.batchId} (${visible(basename(note.file))}): ${note.reason}.`,
        "Nothing of what it holds now was paid. Rows of the file as it was read that were already sent stay in the state store and in the ledger beside this note, if the run wrote one (payouts status / payouts ledger).",
        "Check the file (was it still being copied or saved?); once it is complete, drop it again into the jobs folder. Rows paid already are refused there as used ids or repeats."
      ].join("\n")
    case "ApprovalRefused":
      return `NOT PAID: the approval of batch ${note.batchId}${note.by === undefined ? "" : ` by ${note.by}`} is refused by this watcher: ${policyRefusalText(note.refusal)}. It needs a new approval.`
    case "EditedAfterApproval":
      return `NOT PAID: ${basename(note.file)} was edited after ${note.by} approved batch ${note.approvedBatch} at ${note.approvedAt}: ${note.differs}. That approval does not cover it: this is a new batch that needs its own approval.`
    case "ChangedWhileStarting":
      return `NOT PAID: ${basename(note.file)} changed while its run started (${note.change}); the approval of batch ${note.approvedBatch} by ${note.by} does not cover it: it needs its own approval.`
    case "EditedBeforeApproval":
      return `NOT APPROVED: ${note.file} was edited after batch ${note.requestedBatch} was put up for approval: ${note.differs}. ${note.by} tried to approve it at ${note.at}; the approval of ${note.requestedBatch} covers nothing else. The file goes back to be put up for approval as a new batch.`
    case "EditedAfterRequest":
      return `NOT PAID: ${basename(note.file)} was edited after batch ${note.previousBatch} was ${note.approved ? `approved${note.approvedBy === undefined ? "" : ` by ${note.approvedBy}`}` : "put up for approval"}: its content is now batch ${note.batchId}. The earlier ${note.approved ? "approval" : "request"} does not cover it: it needs its own approval.`
  }
}

export const JobNotesLive = Layer.succeed(JobNotes, { text: jobNoteText, refusal: refusalText, policyRefusal: policyRefusalText, resolveRefusal: resolveRefusalText, resolveApplied: appliedText, serviceTrouble: serviceTroubleText })
