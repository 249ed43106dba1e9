/**
 * The console's Approvals page over real HTTP (issue 34): a real `payouts watch --require-approval
 * --four-eyes --submitted-by alice --once` puts two batches up for approval; the page shows their
 * totals, fee estimates and first rows (phones masked, names escaped); a viewer may not decide (403);
 * the submitter is refused (four eyes), so is a name the console's approvers leave out, and a
 * decision without a reason; bob approves one and rejects the other, recorded in the approval files
 * as `payouts approve` / `payouts reject` record them; the watcher then pays the approved batch, once,
 * with bob in the store as its approver.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { JobNotesLive } from "../../src/cli/JobNoteText.ts"
import { SignedIn } from "../../src/console/Contract.ts"
import { approvalsRoutes } from "../../src/console/pages/Approvals.ts"
import { ConsoleSettings } from "../../src/console/Settings.ts"
import { jobFolder } from "../../src/jobs/JobFolder.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { accountOf, admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { request, serveRoutes, textOf } from "./decisionsSupport.ts"

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : [])
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"))

const payroll = [
  { id: "P-1", amount: "85400", phone: ordinaryPhone(11), name: "<b>Zoe & Co</b>" },
  { id: "P-2", amount: "1000", phone: ordinaryPhone(12) },
  { id: "P-3", amount: "2000", phone: ordinaryPhone(13) }
]
const bonus = [{ id: "B-1", amount: "5000", phone: ordinaryPhone(21) }]

const VERA = { name: "vera", role: "viewer" } as const
const ALICE = { name: "alice", role: "approver" } as const
const MALLORY = { name: "mallory", role: "approver" } as const
const BOB = { name: "bob", role: "approver" } as const

describe("console: Approvals", () => {
  it.scopedLive(
    "shows what waits with its totals and rows; four eyes and the approvers hold; bob approves one and rejects the other, as the CLI records them",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const service = serviceOf(sandbox)
        const base = tempDir("payouts-console-approvals-")
        const root = join(base, "jobs")
        mkdirSync(root, { recursive: true })
        const state = join(base, "state.db")
        const folder = jobFolder(root)
        const watch = payoutsDone(service, ["watch", root, "--once", "--require-approval", "--four-eyes", "--submitted-by", "alice", "--state", state, ...FAST])
        writeCsv(root, "payroll.csv", payroll)
        writeCsv(root, "bonus.csv", bonus)
        expect((yield* watch).code).toBe(0)
        expect(ls(folder.awaiting)).toEqual(["bonus.approval.json", "bonus.csv", "payroll.approval.json", "payroll.csv"])
        const payrollId: string = json(join(folder.awaiting, "payroll.approval.json")).batch_id
        const bonusId: string = json(join(folder.awaiting, "bonus.approval.json")).batch_id

        // The console holds the approvers its watcher was given (bob, carol) beside what each request records.
        const settings = { jobs: Option.some(folder), policy: { approvers: ["bob", "carol"], fourEyes: true, submittedBy: "alice" }, idleTimeout: Duration.minutes(30), secure: false }
        const context = yield* Layer.build(Layer.mergeAll(NodeContext.layer, Layer.succeed(ConsoleSettings, settings), JobNotesLive))
        const url = yield* serveRoutes((who) => approvalsRoutes.pipe(Effect.provideService(SignedIn, who), Effect.provide(context)))

        // What a viewer sees: each batch's totals, fee estimate, first rows (masked, escaped); no decision.
        const look = yield* request(url, "/approvals", VERA)
        expect(look.status).toBe(200)
        const seen = textOf(look.body)
        expect(seen).toContain(`payroll.csv batch ${payrollId}`)
        expect(seen).toContain(`bonus.csv batch ${bonusId}`)
        expect(seen).toMatch(/XAF 3 88,400 1,808 90,208/)
        expect(seen).toContain("Submitted")
        expect(seen).toContain("by alice")
        expect(seen).toContain("Four eyes: whoever submitted the batch cannot approve it.")
        expect(seen).toContain("All 3 rows (phones masked)")
        expect(look.body).toContain("&lt;b&gt;Zoe &amp; Co&lt;/b&gt;")
        expect(look.body).not.toContain("<b>Zoe")
        expect(look.body).not.toContain(ordinaryPhone(11))
        expect(seen).toContain("+237*******11")
        expect(look.body).not.toContain(">Approve</button>")
        expect((yield* request(url, `/approvals/${payrollId}/approve`, VERA, { reason: "looks right" })).status).toBe(403)

        // The submitter is told before trying, and refused when trying; so is a name outside the approvers.
        const alicePage = yield* request(url, "/approvals", ALICE)
        expect(textOf(alicePage.body)).toContain("You may not approve this batch: four eyes: alice submitted this batch; another person must approve it")
        expect(alicePage.body).toContain(`<label for="reason-${payrollId}">Reason</label>`)
        const byAlice = yield* request(url, `/approvals/${payrollId}/approve`, ALICE, { reason: "looks right" })
        expect(byAlice.status).toBe(409)
        expect(textOf(byAlice.body)).toContain("Not done: not approved: four eyes: alice submitted this batch; another person must approve it")
        const byMallory = yield* request(url, `/approvals/${payrollId}/approve`, MALLORY, { reason: "looks right" })
        expect(byMallory.status).toBe(409)
        expect(textOf(byMallory.body)).toContain("mallory may not approve: the approvers are bob, carol")
        const noReason = yield* request(url, `/approvals/${payrollId}/approve`, BOB, { reason: " " })
        expect(noReason.status).toBe(409)
        expect(textOf(noReason.body)).toContain("a decision needs a reason")
        expect(ls(folder.awaiting)).toContain("payroll.csv")

        // Bob approves the payroll and rejects the bonus, each with why.
        const approved = yield* request(url, `/approvals/${payrollId}/approve`, BOB, { reason: "matches the payroll sheet" })
        expect(approved.status, textOf(approved.body)).toBe(200)
        expect(textOf(approved.body)).toContain(`Approved batch ${payrollId} (payroll.csv) by bob`)
        expect(json(join(folder.processing, "payroll.approval.json"))).toMatchObject({
          status: "approved",
          approved_by: "bob",
          reason: "matches the payroll sheet",
          approved_what: { batch_id: payrollId, rows: 3, currencies: { XAF: { rows: 3, amount: "88400" } } }
        })
        const rejected = yield* request(url, `/approvals/${bonusId}/reject`, BOB, { reason: "bonus is next month" })
        expect(rejected.status, textOf(rejected.body)).toBe(200)
        expect(textOf(rejected.body)).toContain(`Rejected batch ${bonusId} (bonus.csv) by bob`)
        expect(textOf(rejected.body)).toContain("No batch is waiting for approval.")
        expect(json(join(folder.rejected, "bonus.approval.json"))).toMatchObject({ status: "rejected", rejected_by: "bob", reason: "bonus is next month" })

        // The watcher pays the approved batch once, bob recorded in the store as its approver; nothing of the bonus.
        expect((yield* watch).code).toBe(0)
        expect(ls(folder.done)).toContain("payroll.csv")
        const paid = yield* admin(sandbox).payouts
        expect(paid.map((p) => p.amount).sort((a, b) => a - b)).toEqual([1000, 2000, 85400])
        const stored = yield* Effect.flatMap(StateStore, (store) => store.account(accountOf(sandbox)).listBatches()).pipe(Effect.provide(withHandles(SqliteStateStore.layer({ filename: state }))))
        expect(stored.find((b) => b.batchId === payrollId)?.approvedBy).toBe("bob")

        // A phone the payroll paid to another name: the request says so, and so does the page, before anyone approves.
        writeCsv(root, "refund.csv", [{ id: "R-1", amount: "3000", phone: ordinaryPhone(12), name: "Someone Else" }])
        expect((yield* watch).code).toBe(0)
        const warned = textOf((yield* request(url, "/approvals", BOB)).body)
        expect(warned).toContain("1 row(s) pay a phone another batch paid to another name")
        expect(warned).toContain("line 2: +237*******12 to Someone Else here; to Seller 2 in payroll.csv")
      }),
    240_000
  )
})
