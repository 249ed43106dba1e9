/**
 * Reconciliation against a legal but unkind service (issue 10, DESIGN 7): cut descriptions,
 * out-of-order visibility, late commits, lying pagination, a listing lag longer than the grace, and a
 * listing that never catches up. Every run is real HTTP against the sandbox in real time (time scale 1,
 * so its Date header agrees with our clock) and a real SQLite store. Nobody may be paid twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type AddressInfo, connect, createServer } from "node:net"
import { walletScope } from "../../src/api/ClientConfig.ts"
import { ordinaryPhone, run, writeCsv } from "./support.ts"
import { accountOf, admin, countByToken, type Sandbox, startSandbox, stateOf } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const sellers = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, amount: String(1000 + i), phone: ordinaryPhone(i) }))

/** Faults whose payout exists although the client saw no answer. */
const AMBIGUOUS = "payout.error_after=0.12,payout.reset_after=0.08,payout.hold_after=0.05"

const realTime = (faults: string) => startSandbox({ timeScale: 1, payoutDelaySeconds: 1, faults })

const hostileRun = (
  sandbox: Sandbox,
  name: string,
  rows: number,
  over: { grace?: number; deadline?: number; timeout?: Duration.DurationInput; lease?: number } = {}
) =>
  Effect.gen(function* () {
    const dir = tempDir("payouts-hostile-")
    const file = writeCsv(dir, `${name}.csv`, sellers(rows, name))
    const result = yield* run(sandbox, {
      file,
      state: join(dir, "state.db"),
      requestTimeout: over.timeout ?? "700 millis",
      settings: {
        concurrency: 6,
        reconcileGraceMs: over.grace ?? 1_000,
        reconcileDeadlineMs: over.deadline ?? 90_000,
        leaseTtlMs: over.lease ?? 3_000
      }
    })
    const payouts = yield* admin(sandbox).payouts
    const counts = countByToken(payouts)
    const summary = JSON.parse(readFileSync(join(dir, `${name}.summary.json`), "utf8"))
    return { result, counts, payouts, summary, dir }
  })

/** Never paid twice; with `all`, every row paid exactly once. */
const expectNoDuplicates = (counts: ReadonlyMap<string, number>, all?: number) => {
  expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([])
  if (all !== undefined) expect(counts.size).toBe(all)
}

describe("reconciliation against a hostile listing", () => {
  it.scopedLive(
    "1. descriptions cut or stripped in the listing: an account alarm (exit 5), nothing paid twice",
    () =>
      Effect.gen(function* () {
        for (const mangle of ["cut=13", "strip"]) {
          const sandbox = yield* realTime(`${AMBIGUOUS},payout.error_before=0.05,transactions.desc_mangle=${mangle},seed=21`)
          const { counts, result, summary } = yield* hostileRun(sandbox, `mangled${mangle === "strip" ? "s" : "c"}`, 60)
          expectNoDuplicates(counts)
          expect(result.exitCode).toBe(5)
          expect(summary.exit_code).toBe(5)
          expect(String(summary.account_alarm)).toContain("altered")
          expect((yield* admin(sandbox).invariants).ok).toBe(true)
        }
      }),
    120_000
  )

  it.scopedLive(
    "2. payouts listed 0-4 s late in any order: no resend on a later payout's sight; every row final, paid once",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* realTime(`${AMBIGUOUS},transactions.list_jitter=0s-4s,transactions.list_order=shuffle,seed=22`)
        const { counts, result } = yield* hostileRun(sandbox, "jitter", 60)
        expectNoDuplicates(counts, 60)
        expect(result.exitCode).toBe(0)
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
      }),
    120_000
  )

  it.scopedLive(
    "3. late commit: the service creates the payout seconds after our timeout; it is adopted, not resent",
    () =>
      Effect.gen(function* () {
        // Held 3 s, our timeout 1.5 s: the payout appears 1.5 s after the request ended, within the
        // grace floor (timeout + lease time + twice the lag).
        const sandbox = yield* realTime("payout.commit_delay=0.25:3s,seed=23")
        const { counts, result, summary } = yield* hostileRun(sandbox, "late", 40, { timeout: "1500 millis" })
        expectNoDuplicates(counts, 40)
        expect(result.exitCode).toBe(0)
        expect(summary.counts.completed).toBe(40)
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
      }),
    120_000
  )

  it.scopedLive(
    "4. lying pagination (total_pages 1, an empty middle page, repeated rows) over 200 payouts: every row final, paid once",
    () =>
      Effect.gen(function* () {
        const outcomes = yield* Effect.forEach(
          ["one", "emptymid", "dupref"],
          (lie) =>
            Effect.gen(function* () {
              const sandbox = yield* realTime(`${AMBIGUOUS},transactions.pages_lie=${lie},seed=24`)
              const outcome = yield* hostileRun(sandbox, `pages${lie}`, 200)
              return { lie, ...outcome, invariant: (yield* admin(sandbox).invariants).ok }
            }),
          { concurrency: 3 }
        )
        for (const o of outcomes) {
          expectNoDuplicates(o.counts, 200)
          expect({ lie: o.lie, exit: o.result.exitCode }).toEqual({ lie: o.lie, exit: 0 })
          expect(o.invariant).toBe(true)
        }
      }),
    180_000
  )

  it.scopedLive(
    "5. a listing lag (5 s) longer than the grace (1 s): the run waits for our earlier payouts to be listed, then adopts",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* realTime(`${AMBIGUOUS},transactions.list_lag=5s,seed=25`)
        const { counts, result } = yield* hostileRun(sandbox, "lag", 60)
        expectNoDuplicates(counts, 60)
        expect(result.exitCode).toBe(0)
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
      }),
    120_000
  )

  it.scopedLive(
    "a listing that never catches up ends in an alarm at the deadline (exit 5), not in a run that never ends",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* realTime("payout.error_before=0.2,transactions.list_lag=1h,seed=26")
        const { counts, result, summary } = yield* hostileRun(sandbox, "stuck", 20, { deadline: 4_000 })
        expectNoDuplicates(counts)
        expect(result.exitCode).toBe(5)
        expect(summary.alarms.length).toBeGreaterThan(0)
        for (const alarm of summary.alarms) expect(alarm.reason).toContain("reconcile-deadline")
      }),
    120_000
  )

  it.scopedLive(
    "a payout never created is resent once, with its evidence recorded, once the listing proves it absent",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* realTime("payout.error_before=0.1,seed=27")
        const { counts, result, summary } = yield* hostileRun(sandbox, "absent", 40, { deadline: 10_000 })
        expectNoDuplicates(counts)
        // Every row is paid exactly once, or (a resend that met the fault again, or nothing sent after
        // it to witness the listing) waits for a person: at most one automatic resend.
        expect(counts.size + summary.alarms.length).toBe(40)
        expect([0, 5]).toContain(result.exitCode)
        for (const alarm of summary.alarms) expect(alarm.reason).toMatch(/resent once already|reconcile-deadline/)
        expect(summary.counts.completed).toBe(counts.size)
      }),
    120_000
  )
})

describe("the same file meets the tool twice (issue 11: another store, another working directory)", () => {
  it.scopedLive(
    "a second state store pays nothing again: the pre-scan adopts every row from the listing, loudly",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* realTime("")
        const dir = tempDir("payouts-twice-")
        const file = writeCsv(dir, "twice.csv", sellers(30, "T"))
        const first = yield* run(sandbox, { file, state: join(dir, "first.db") })
        expect(first.exitCode).toBe(0)
        expect((yield* admin(sandbox).payouts).length).toBe(30)
        // Another store (or the default store of another working directory): no memory of the batch.
        const second = yield* run(sandbox, { file, state: join(dir, "other.db") })
        expect(second.exitCode).toBe(0)
        const counts = countByToken(yield* admin(sandbox).payouts)
        expectNoDuplicates(counts, 30)
        const summary = JSON.parse(readFileSync(join(dir, "twice.summary.json"), "utf8"))
        expect(summary.already_paid_adopted).toBe(30)
        // Paid, but not by this batch: counted apart, never as completed by it (issue 31 item 3).
        expect(summary.counts.already_paid).toBe(30)
        expect(summary.counts.completed).toBeUndefined()
        expect(summary.already_paid.listed).toBe(30)
      }),
    120_000
  )
})

describe("a key rotation (issue 11): the account is the host plus the wallet ids, not the key", () => {
  it.scopedLive(
    "a second key of the same wallets resumes the same batch and pays nothing again",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1, extraCredentials: [{ key: "rotated-key", secret: "rotated-secret" }] })
        const dir = tempDir("payouts-rotate-")
        const state = join(dir, "state.db")
        const file = writeCsv(dir, "rotate.csv", sellers(12, "R"))
        const first = yield* run(sandbox, { file, state })
        expect(first.exitCode).toBe(0)
        // The ids used by this batch stay used under the new key: a new file reusing one is refused.
        const second = yield* run(sandbox, { file, state, key: "rotated-key", secret: "rotated-secret" })
        expect(second.exitCode).toBe(0)
        expect(second.summary.batch_id).toBe(first.summary.batch_id)
        expectNoDuplicates(countByToken(yield* admin(sandbox).payouts), 12)
        const reuse = writeCsv(dir, "reuse.csv", sellers(1, "R"))
        const refused = yield* run(sandbox, { file: reuse, state, key: "rotated-key", secret: "rotated-secret" })
        expect(refused.exitCode).toBe(2)
        expect((yield* admin(sandbox).payouts).length).toBe(12)
      }),
    120_000
  )
})

describe("the same service through another address (a proxy, an alias)", () => {
  it.scopedLive(
    "another account in the store, but the same tokens: the pre-scan adopts, nobody is paid again",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        // A plain TCP forwarder: the same service at another host:port.
        const target = new URL(sandbox.baseUrl)
        const proxy = createServer((client) => {
          const upstream = connect(Number(target.port), target.hostname)
          client.pipe(upstream).pipe(client)
          client.on("error", () => upstream.destroy())
          upstream.on("error", () => client.destroy())
        })
        yield* Effect.acquireRelease(
          Effect.promise(() => new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", () => ok()))),
          () => Effect.sync(() => proxy.close())
        )
        const aliasUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`
        const alias = { ...sandbox, baseUrl: aliasUrl }
        const scope = walletScope(Object.values((yield* stateOf(sandbox)).wallets).map((w) => w.id))
        const dir = tempDir("payouts-alias-")
        const file = writeCsv(dir, "alias.csv", sellers(10, "A"))
        const first = yield* run(sandbox, { file, state: join(dir, "direct.db"), request: { tokenScope: scope } })
        expect(first.exitCode).toBe(0)
        expect(accountOf(alias)).not.toBe(accountOf(sandbox))
        const second = yield* run(alias, { file, state: join(dir, "alias.db"), request: { tokenScope: scope } })
        expect(second.exitCode).toBe(0)
        expect((second.summary as Record<string, unknown>).already_paid_adopted).toBe(10)
        expectNoDuplicates(countByToken(yield* admin(sandbox).payouts), 10)
      }),
    120_000
  )
})
