/**
 * Issue 32 item 4: resolve's results and refusals are typed facts (run/ResolveDecision.ts, ResolveRefusal.ts) worded in
 * src/cli/ResolveText.ts, with the very sentences `payouts resolve` printed before, since scripts
 * and people read them (stderr, `--json`'s refused[].message, the console's Attention page).
 */
import { describe, expect, it } from "vitest"
import { JobNotes } from "../../src/jobs/JobNotes.ts"
import { JobNotesLive } from "../../src/cli/JobNoteText.ts"
import { appliedText, resolveRefusalText, rowRefusalText } from "../../src/cli/ResolveText.ts"
import { BatchId } from "../../src/domain/Ids.ts"
import { ResolveRefusal, RowRefusal } from "../../src/run/ResolveRefusal.ts"
import { Effect } from "effect"

const batchId = BatchId.make("ab256aba44ae72bd")

describe("resolve's refusals worded", () => {
  it("a row the decision does not fit", () => {
    expect(rowRefusalText(RowRefusal.NotUnknown({ line: 4, state: "completed", decision: "Adopt" }))).toBe("line 4 is completed, not unknown: nothing to adopt")
    expect(rowRefusalText(RowRefusal.NotUnknown({ line: 4, state: "failed", decision: "Resend" }))).toBe("line 4 is failed: only an unknown row can be resent")
    expect(rowRefusalText(RowRefusal.NotUnknown({ line: 4, state: "failed", decision: "Abandon" }))).toBe("line 4 is failed: only an unknown row can be abandoned")
    expect(rowRefusalText(RowRefusal.NoAlarm({ line: 2 }))).toBe("line 2 has no alarm to acknowledge")
  })

  it("a resend that must not go out", () => {
    expect(rowRefusalText(RowRefusal.Halted({ line: 3, by: "ops", reason: "audit" }))).toBe("line 3: refused, the account is halted by ops (audit); lift it first with payouts halt --lift")
    expect(rowRefusalText(RowRefusal.Carried({ line: 3, references: ["R1", "R2"] }))).toBe("line 3: refused, R1, R2 carries its token; adopt it instead")
    expect(rowRefusalText(RowRefusal.AccountAlarm({ line: 3, alarm: "gap" }))).toBe(
      "line 3: refused, the account alarm says the listing cannot prove absence (gap); check the listing by hand and clear it with --listing-ok first"
    )
    expect(rowRefusalText(RowRefusal.UnreadDays({ line: 3, days: ["2026-11-28", "2026-11-29"] }))).toBe(
      "line 3: refused, the listing of 2026-11-28, 2026-11-29 could not be read completely, so nothing proves its payout absent; look again later"
    )
  })

  it("the command's refusals, several rows one a line", () => {
    expect(resolveRefusalText(ResolveRefusal.Busy({ batchId }))).toBe(`batch ${batchId} is being run by another process; stop it (or wait for it to end) before resolving`)
    expect(resolveRefusalText(ResolveRefusal.LeaseLost({ batchId }))).toBe(
      `the batch's lease was taken by another process; nothing more is decided (look again with payouts resolve ${batchId})`
    )
    expect(resolveRefusalText(ResolveRefusal.NoneUnknown({ batchId }))).toBe(`no row of batch ${batchId} is unknown: nothing to decide`)
    expect(resolveRefusalText(ResolveRefusal.NoSuchLines({ batchId, missing: [9], span: [2, 6] }))).toBe(`no row on line 9 in batch ${batchId} (its rows are on lines 2 to 6)`)
    expect(resolveRefusalText(ResolveRefusal.NoSuchLines({ batchId, missing: [9, 12], span: undefined }))).toBe(`no row on lines 9, 12 in batch ${batchId} (it has no rows)`)
    expect(resolveRefusalText(ResolveRefusal.NoRowsNamed())).toBe("name the rows to decide: --line N, --lines 3,7-9 or --all-unknown")
    expect(resolveRefusalText(ResolveRefusal.AdoptOneRow())).toBe("--adopt takes one row (--line N): a reference is one payout")
    const notUnknown = RowRefusal.NotUnknown({ line: 2, state: "completed", decision: "Resend" })
    expect(resolveRefusalText(ResolveRefusal.NeedsNoPerson({ rows: [{ line: 2, state: "completed", unfit: notUnknown }, { line: 5, state: "failed", unfit: undefined }] }))).toBe(
      "line 2 is completed: only an unknown row can be resent (it does not need a person)\nline 5 is failed (it does not need a person)"
    )
    expect(resolveRefusalText(ResolveRefusal.Unfit({ rows: [notUnknown, RowRefusal.NoAlarm({ line: 7 })] }))).toBe(
      "line 2 is completed: only an unknown row can be resent\nline 7 has no alarm to acknowledge"
    )
  })

  it("an adoption refused, the service's values quoted as read", () => {
    expect(resolveRefusalText(ResolveRefusal.StatusUnread({ reference: "X1", error: "Transaction not found" }))).toBe("status of X1: Transaction not found")
    expect(resolveRefusalText(ResolveRefusal.NotThisPayout({ reference: "X1", type: "payin", amount: 500, currency: "XAF" }))).toBe('X1 is a payin of 500 "XAF", not this row\'s payout')
    expect(resolveRefusalText(ResolveRefusal.Implausible({ reference: "X1", problem: "fee -1 is negative" }))).toBe("X1: fee -1 is negative; not adopted")
    expect(resolveRefusalText(ResolveRefusal.TakenByAnother({ reference: "X1", line: 3, batchId }))).toBe(`X1 already belongs to line 3 of batch ${batchId}`)
    expect(resolveRefusalText(ResolveRefusal.ChangedMeanwhile({ line: 3 }))).toBe("line 3 changed meanwhile; look again")
  })

  it("the console gets the same words through JobNotes", () => {
    const refusal = ResolveRefusal.NoneUnknown({ batchId })
    const worded = Effect.runSync(Effect.map(JobNotes, (notes) => notes.resolveRefusal(refusal)).pipe(Effect.provide(JobNotesLive)))
    expect(worded).toBe(resolveRefusalText(refusal))
  })

  it("what a decision did, one row a line", () => {
    expect(appliedText({ line: 3, result: "adopted", reference: "X1", status: "completed" })).toBe("line 3: adopted X1 (completed)")
    expect(appliedText({ line: 3, result: "resent", reference: "X2", status: "pending" })).toBe("line 3: resent, X2 (pending)")
    expect(appliedText({ line: 3, result: "resent", reference: "X2", anomaly: "fee 1e300 is beyond any payout" })).toBe(
      "line 3: resent, X2; ALARM: fee 1e300 is beyond any payout"
    )
    expect(appliedText({ line: 3, result: "not-sent", reference: null, problem: "connection refused" })).toBe("line 3: the resend was not sent (connection refused); the row stays unknown")
    expect(appliedText({ line: 3, result: "refused-by-service", reference: null, problem: "phone invalid" })).toBe("line 3: the service refused the resend: phone invalid")
    expect(appliedText({ line: 3, result: "no-answer", reference: null, problem: "timed out" })).toBe("line 3: resent, but no answer (timed out): it is unknown again")
    expect(appliedText({ line: 3, result: "abandoned", reference: null })).toBe("line 3: abandoned (never retried automatically)")
    expect(appliedText({ line: 3, result: "acknowledged", reference: null })).toBe("line 3: alarm acknowledged")
  })
})
