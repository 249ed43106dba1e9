/**
 * Issue 12, item 1, through the real CLI: an approval binds the batch id and its control totals; an
 * edited file is never paid under an earlier approval; approvers are named, restricted, four eyes.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { StateStore, withHandles } from "../kit/Store.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { accountOf, admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { FAST, payoutsDone, serviceOf } from "./cli.ts"
import { AccountId } from "../../src/domain/Ids.ts"

const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : [])
const json = (path: string) => JSON.parse(readFileSync(path, "utf8"))

const setup = () => {
  const base = tempDir("payouts-approval-")
  const root = join(base, "jobs")
  mkdirSync(root, { recursive: true })
  return { root, state: join(base, "state.db"), awaiting: join(root, "awaiting-approval"), processing: join(root, "processing"), done: join(root, "done") }
}

const payroll = [
  { id: "A-1", amount: "85400", phone: ordinaryPhone(1) },
  { id: "A-2", amount: "1000", phone: ordinaryPhone(2) },
  { id: "A-3", amount: "2000", phone: ordinaryPhone(3) }
]

/** Rewrites a batch file in place with one amount changed (as a person editing it would). */
const edit = (dir: string, name: string, amounts: Readonly<Record<string, string>>) =>
  writeCsv(dir, name, payroll.map((row) => ({ ...row, amount: amounts[row.id] ?? row.amount })))

const storedBatches = (state: string, account: string) =>
  Effect.flatMap(StateStore, (store) => store.account(AccountId.make(account)).listBatches()).pipe(
    Effect.provide(Layer.merge(withHandles(SqliteStateStore.layer({ filename: state })), NodeContext.layer))
  )

describe("approval binds what was approved (real CLI)", () => {
  it.scopedLive("a file edited in awaiting-approval/ is not approved; edited after approval it is not paid; each new content needs its own approval", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const service = serviceOf(sandbox)
      const { awaiting, done, processing, root, state } = setup()
      const watch = payoutsDone(service, ["watch", root, "--once", "--require-approval", "--state", state, ...FAST])
      writeCsv(root, "payroll.csv", payroll)

      expect((yield* watch).code).toBe(0)
      expect(ls(awaiting)).toEqual(["payroll.approval.json", "payroll.csv"])
      const first = json(join(awaiting, "payroll.approval.json"))
      expect(first.currencies.XAF).toMatchObject({ rows: 3, amount: "88400" })

      // 1. Edited after it was put up for approval: approve refuses, loudly, and approves nothing.
      edit(awaiting, "payroll.csv", { "A-1": "8540000" })
      const refused = yield* payoutsDone(service, ["approve", first.batch_id.slice(0, 10), "--jobs", root, "--by", "alice"])
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toMatch(/NOT APPROVED: payroll\.csv was edited after batch/)
      expect(refused.stderr).toContain("XAF 3 rows 8543000")
      const superseded = json(join(processing, "payroll.approval.json"))
      expect(superseded.status).toBe("superseded")
      expect(superseded.approved_by).toBeUndefined()
      expect(superseded.note).toMatch(new RegExp(`^NOT APPROVED: payroll\\.csv was edited after batch ${first.batch_id} was put up for approval: .+\\. alice tried to approve it at \\S+; the approval of ${first.batch_id} covers nothing else\\.`))
      expect(refused.stderr).toContain("Approve the new batch once the watcher has put it up")
      expect(yield* admin(sandbox).payouts).toEqual([])

      // The watcher puts the new content up as a new batch, saying which one it replaces.
      const second = yield* watch
      expect(second.code).toBe(0)
      expect(second.output).toMatch(/NOT PAID: payroll\.csv was edited after batch/)
      const request2 = json(join(awaiting, "payroll.approval.json"))
      expect(request2.status).toBe("awaiting")
      expect(request2.batch_id).not.toBe(first.batch_id)
      expect(request2.supersedes).toBe(first.batch_id)
      expect(request2.currencies.XAF.amount).toBe("8543000")
      expect(yield* admin(sandbox).payouts).toEqual([])

      // 2. Approved, then edited before the watcher paid it: not paid under that approval.
      const approved = yield* payoutsDone(service, ["approve", request2.batch_id, "--jobs", root, "--by", "alice"])
      expect(approved.code).toBe(0)
      expect(approved.stderr).toContain(`Approved batch ${request2.batch_id}`)
      expect(json(join(processing, "payroll.approval.json"))).toMatchObject({
        status: "approved",
        approved_by: "alice",
        approved_what: { batch_id: request2.batch_id, rows: 3, currencies: { XAF: { rows: 3, amount: "8543000" } } }
      })
      edit(processing, "payroll.csv", { "A-1": "8540000", "A-2": "100000" })
      const third = yield* watch
      expect(third.code).toBe(0)
      expect(third.output).toMatch(new RegExp(`NOT PAID: payroll\\.csv was edited after batch ${request2.batch_id} was approved by alice`))
      expect(yield* admin(sandbox).payouts).toEqual([])
      const request3 = json(join(awaiting, "payroll.approval.json"))
      expect([request3.status, request3.supersedes, request3.currencies.XAF.amount]).toEqual(["awaiting", request2.batch_id, "8642000"])
      expect(request3.note).toMatch(/NOT PAID/)

      // 3. Its own approval pays it, once, as approved; the file and the store record who, when, what.
      expect((yield* payoutsDone(service, ["approve", request3.batch_id, "--jobs", root, "--by", "bob"])).code).toBe(0)
      expect((yield* watch).code).toBe(0)
      expect(ls(done)).toContain("payroll.csv")
      const paid = yield* admin(sandbox).payouts
      expect(paid.map((p) => p.amount).sort((a, b) => a - b)).toEqual([2000, 100000, 8540000])
      const record = json(join(done, "payroll.approval.json"))
      expect(record).toMatchObject({ status: "approved", approved_by: "bob", approved_what: { batch_id: request3.batch_id } })
      expect(record.approved_at).toMatch(/^\d{4}-\d\d-\d\dT/)
      const summary = json(join(done, "payroll.summary.json"))
      expect(summary.batch_id).toBe(request3.batch_id)
      expect(summary.approval).toMatchObject({ by: "bob", what: { batch_id: request3.batch_id } })
      const stored = (yield* storedBatches(state, accountOf(sandbox))).filter((b) => b.batchId === request3.batch_id)
      expect(stored.length).toBe(1)
      expect(stored[0].approvedBy).toBe("bob")
      expect(stored[0].approvedAt).not.toBeNull()
      expect(JSON.parse(stored[0].approvedWhat ?? "{}")).toEqual({ batch_id: request3.batch_id, rows: 3, currencies: { XAF: { rows: 3, amount: "8642000" } } })
    }),
    300_000
  )

  it.scopedLive("--by is required; --approvers and --four-eyes refuse with a clear message; the watcher checks again before paying", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const service = serviceOf(sandbox)
      const { awaiting, done, processing, root, state } = setup()
      const policy = ["--require-approval", "--four-eyes", "--submitted-by", "alice"]
      const watch = (env: Record<string, string>) => payoutsDone(service, ["watch", root, "--once", ...policy, "--state", state, ...FAST], env)
      writeCsv(root, "bonus.csv", payroll)

      expect((yield* watch({ PAYOUTS_APPROVERS: "alice,bob" })).code).toBe(0)
      const request = json(join(awaiting, "bonus.approval.json"))
      expect(request).toMatchObject({ submitted_by: "alice", approvers: ["alice", "bob"], four_eyes: true })
      const id = request.batch_id

      const noName = yield* payoutsDone(service, ["approve", id, "--jobs", root])
      expect(noName.code).not.toBe(0)
      expect(noName.output).toMatch(/--by/)
      const stranger = yield* payoutsDone(service, ["approve", id, "--jobs", root, "--by", "mallory"])
      expect(stranger.code).not.toBe(0)
      expect(stranger.stderr).toMatch(/mallory may not approve: the approvers are alice, bob/)
      const submitter = yield* payoutsDone(service, ["approve", id, "--jobs", root, "--by", "Alice"])
      expect(submitter.code).not.toBe(0)
      expect(submitter.stderr).toMatch(/four eyes: Alice submitted this batch; another person must approve it/)
      expect(ls(awaiting)).toEqual(["bonus.approval.json", "bonus.csv"])

      const withoutSubmitter = yield* payoutsDone(service, ["watch", root, "--once", "--require-approval", "--four-eyes", "--state", state, ...FAST])
      expect(withoutSubmitter.code).toBe(2)
      expect(withoutSubmitter.stderr).toMatch(/--four-eyes needs to know who submits the files/)

      expect((yield* payoutsDone(service, ["approve", id, "--jobs", root, "--by", "bob"])).code).toBe(0)
      // The approvers changed before the watcher paid it: bob's approval no longer counts.
      const changed = yield* watch({ PAYOUTS_APPROVERS: "alice,carol" })
      expect(changed.code).toBe(0)
      expect(changed.output).toMatch(/NOT PAID: the approval of batch \w+ by bob is refused by this watcher: bob may not approve/)
      expect(yield* admin(sandbox).payouts).toEqual([])
      expect(ls(awaiting)).toContain("bonus.csv")
      expect(ls(processing)).toEqual([])

      expect((yield* payoutsDone(service, ["approve", id, "--jobs", root, "--by", "carol"])).code).toBe(0)
      expect((yield* watch({ PAYOUTS_APPROVERS: "alice,carol" })).code).toBe(0)
      expect(ls(done)).toContain("bonus.csv")
      expect((yield* admin(sandbox).payouts).length).toBe(3)
      expect(json(join(done, "bonus.approval.json"))).toMatchObject({ approved_by: "carol", submitted_by: "alice" })
    }),
    300_000
  )
})
