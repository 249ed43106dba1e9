/**
 * `payouts watch --notify URL` through the real binary, against a real receiver that verifies each
 * signature: a file put up for approval sends `batch.awaiting_approval`, a bad file `batch.rejected`,
 * and the approved batch, once paid, `batch.done`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FAST, payoutsDone, serviceOf } from "../jobs/cli.ts"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { type Delivery, newSecret, receiver, verifies } from "./receiver.ts"

const payroll = [
  { id: "P-1", amount: "85400", phone: ordinaryPhone(41) },
  { id: "P-2", amount: "1000", phone: ordinaryPhone(42) },
  { id: "P-3", amount: "2000", phone: ordinaryPhone(43) }
]

const typed = (deliveries: ReadonlyArray<Delivery>, type: string) => deliveries.map((d) => ({ d, body: JSON.parse(d.body) })).filter((x) => x.body.type === type)

describe("payouts watch --notify (real CLI, real receiver)", () => {
  it.scopedLive(
    "awaiting approval and a rejected file are told, then the approved batch's end; every notification verified",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const service = serviceOf(sandbox)
        const hooks = yield* receiver()
        const secret = newSecret()
        const base = tempDir("payouts-notify-watch-")
        const root = join(base, "jobs")
        mkdirSync(root, { recursive: true })
        const watch = ["watch", root, "--once", "--require-approval", "--notify", hooks.url, "--state", join(base, "state.db"), ...FAST]
        const env = { PAYOUTS_NOTIFY_SECRET: secret }
        writeCsv(root, "payroll.csv", payroll)
        writeFileSync(join(root, "bad.csv"), `id,amount,currency,operator,phone\nB-1,12.5,XAF,carrier1_cm,${ordinaryPhone(44)}\n`)

        const first = yield* payoutsDone(service, watch, env)
        expect(first.code, first.output).toBe(0)
        expect(hooks.deliveries).toHaveLength(2)
        for (const d of hooks.deliveries) expect(verifies(secret, d, d.at)).toBe(true)
        const approval = JSON.parse(readFileSync(join(root, "awaiting-approval", "payroll.approval.json"), "utf8"))
        const [awaiting] = typed(hooks.deliveries, "batch.awaiting_approval")
        expect(awaiting.body.data).toMatchObject({ batch_id: approval.batch_id, file: "payroll.csv", exit_code: 0, counts: { validated: 3 }, amounts: { XAF: { rows: 3, amount: "88400" } } })
        const [rejected] = typed(hooks.deliveries, "batch.rejected")
        expect(rejected.body.data).toMatchObject({ file: "bad.csv", exit_code: 2, errors: 2 })
        expect(rejected.body.data.outcome).toMatch(/^refused/)
        for (const d of hooks.deliveries) expect(d.body).not.toMatch(/6775\d{4}/)

        const approved = yield* payoutsDone(service, ["approve", approval.batch_id.slice(0, 10), "--jobs", root, "--by", "alice"])
        expect(approved.code, approved.output).toBe(0)
        const second = yield* payoutsDone(service, watch, env)
        expect(second.code, second.output).toBe(0)
        expect(hooks.deliveries).toHaveLength(3)
        const [done] = typed(hooks.deliveries, "batch.done")
        expect(verifies(secret, done.d, done.d.at)).toBe(true)
        expect(done.body.data).toMatchObject({
          batch_id: approval.batch_id,
          file: "payroll.csv",
          exit_code: 0,
          counts: { completed: 3 },
          amounts: { XAF: { rows: 3, amount: "88400", completed_amount: "88400" } }
        })
      }),
    180_000
  )

  it.scopedLive(
    "watch --notify without a secret is refused at start, before a file is taken",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox()
        const hooks = yield* receiver()
        const base = tempDir("payouts-notify-watch-")
        const root = join(base, "jobs")
        mkdirSync(root, { recursive: true })
        writeCsv(root, "payroll.csv", payroll)
        const refused = yield* payoutsDone(serviceOf(sandbox), ["watch", root, "--once", "--notify", hooks.url, "--state", join(base, "state.db"), ...FAST])
        expect(refused.code).toBe(2)
        expect(refused.stderr).toMatch(/ERROR +payouts: --notify needs a signing secret/)
        expect(readFileSync(join(root, "payroll.csv"), "utf8")).toContain("P-1")
        expect(hooks.deliveries).toHaveLength(0)
      }),
    60_000
  )
})
