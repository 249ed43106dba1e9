/**
 * A pool of `payouts watch` workers (DESIGN 12), the real binary, on one folder and one PostgreSQL
 * store, against a sandbox with after-commit faults and a lagging listing. Batches are dropped at
 * once; one worker is SIGKILLed and restarted, another SIGSTOPped past its lease and resumed. Every
 * batch must end in done/ with a complete ledger, every row paid exactly once, ledger statuses equal
 * to the sandbox's. The long version: npm run soak -- --workers 4 --state postgres://...
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone, readLedger, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { adminClient, DATABASE_URL, freshSchema, POSTGRES_ADAPTERS } from "../store/postgres.ts"
import { cli, FAST, start, until } from "./binarySupport.ts"

// A low account rate keeps work under way long enough for the kill and the stall to land mid-batch.
const WORKER = ["--scan-every", "200ms", "--settle", "200ms", "--retry-every", "2s", "--concurrency", "4", "--rate", "8", ...FAST]
const BATCHES = 4
const ROWS = 12

/** The lease owners of the batches under way, read under the store. */
const leaseOwners = (schema: string) =>
  Effect.scoped(
    Effect.flatMap(adminClient, (sql) => sql<{ leaseOwner: string }>`SELECT lease_owner AS "leaseOwner" FROM ${sql(schema)}.batches WHERE lease_owner IS NOT NULL`)
  ).pipe(
    Effect.map((rows) => rows.map((r) => r.leaseOwner)),
    // Before the first worker migrated the schema there is no batch under way.
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )

const storeUrl = (schema: string) => {
  const url = new URL(Redacted.value(DATABASE_URL))
  url.searchParams.set("schema", schema)
  return url.toString()
}

describe.skipIf(POSTGRES_ADAPTERS.length === 0)("a pool of watch workers on one PostgreSQL store", () => {
  it.scopedLive(
    "workers killed and stalled at random: every batch done, every row paid once, ledgers as the sandbox says",
    () =>
      Effect.gen(function* () {
        const seed = Number(process.env.PAYOUTS_TEST_SEED ?? 1414)
        const sandbox = yield* startSandbox({
          timeScale: 1,
          payoutDelaySeconds: 1,
          faults: ["payout.reset_after=0.05", "payout.error_after=0.05", "transactions.list_lag=1s", `seed=${seed}`].join(",")
        })
        const schema = yield* freshSchema
        const state = storeUrl(schema)
        const dir = tempDir("payouts-workers-")
        const workers = Array.from({ length: 3 }, () => start(sandbox, state, ["watch", dir, ...WORKER]))
        const kill = (w: (typeof workers)[number]) => Effect.sync(() => w.child.exitCode === null && w.child.kill("SIGKILL"))
        yield* Effect.addFinalizer(() => Effect.forEach(workers, kill))
        let n = 0
        for (let b = 0; b < BATCHES; b++) {
          const rows = Array.from({ length: ROWS }, () => ({ id: `W-${++n}`, amount: String(1000 + n), phone: ordinaryPhone(n) }))
          writeCsv(dir, `batch-${b}.csv`, rows)
        }
        const paid = Effect.map(admin(sandbox).payouts, (p) => p.length)
        const doneFiles = Effect.sync(() => (existsSync(join(dir, "done")) ? readdirSync(join(dir, "done")).filter((f) => /^batch-\d+\.csv$/.test(f)).length : 0))

        // The worker running a batch is killed mid-batch and another started; later the one running a
        // batch then is stalled past its lease, and resumed once another worker has taken the batch over.
        const holder = Effect.map(leaseOwners(schema), (owners) => workers.find((w) => owners.some((o) => o.split(":").at(-2) === String(w.child.pid))))
        yield* until("a batch under way", Effect.map(Effect.zip(paid, holder), ([p, h]) => p >= 5 && h !== undefined), 120_000)
        const killed = yield* holder
        if (killed === undefined) return yield* Effect.die(new Error("the batch's holder went away"))
        yield* kill(killed)
        workers.push(start(sandbox, state, ["watch", dir, ...WORKER]))
        yield* until("a batch under way again", Effect.map(holder, (h) => h !== undefined && h !== killed), 120_000)
        const stalled = yield* holder
        if (stalled === undefined) return yield* Effect.die(new Error("the batch's holder went away"))
        stalled.child.kill("SIGSTOP")
        yield* Effect.sleep("4 seconds") // past the 3 s lease of FAST: its batch passes to another worker
        stalled.child.kill("SIGCONT")

        yield* until(`every batch in done/ (${dir})`, Effect.map(doneFiles, (d) => d === BATCHES), 240_000)
        // The three workers still running beat in the store: `payouts workers` lists them live.
        const listed = yield* cli(sandbox, state, ["workers", "--json"])
        expect(listed.code, listed.stderr).toBe(0)
        expect(JSON.parse(listed.stdout).filter((w: { state: string }) => w.state === "live").length).toBeGreaterThanOrEqual(3)
        if (process.env.PAYOUTS_TEST_VERBOSE !== undefined) workers.forEach((w, i) => console.log(`--- worker ${i}\n${w.output()}`))
        const payouts = yield* admin(sandbox).payouts
        const counts = countByToken(payouts)
        expect(counts.size).toBe(BATCHES * ROWS)
        expect([...counts.values()].filter((c) => c !== 1)).toEqual([])
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
        const byReference = new Map(payouts.map((p) => [p.reference, p.status.toLowerCase()]))
        for (let b = 0; b < BATCHES; b++) {
          const ledger = readLedger(join(dir, "done", `batch-${b}.ledger.csv`))
          expect(ledger).toHaveLength(ROWS)
          for (const row of ledger) expect(row.status, `batch-${b} ${row.id}`).toBe(byReference.get(row.reference))
        }
      }),
    300_000
  )
})
