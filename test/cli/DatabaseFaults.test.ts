/**
 * The database going away mid-run (DESIGN 12): every connection of the run cut with
 * pg_terminate_backend, several times, while payouts are being sent. A lost connection is retried; no
 * payout is sent unless its intent committed; nobody is paid twice; a rerun finishes what is left.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { ordinaryPhone, writeCsv } from "../run/support.ts"
import { admin, countByToken, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { adminClient, DATABASE_URL, POSTGRES_ADAPTERS } from "../store/postgres.ts"
import { cli, FAST, start, until } from "./binarySupport.ts"

/**
 * A database of this test's own: the cuts below end every connection to it, and only those. Cut in
 * the shared test database, they also ended the connections of store tests running at the same moment
 * in other workers, whose retries then slept on a TestClock nobody moved (a 120 s timeout in CI).
 */
const ownDatabase = Effect.acquireRelease(
  Effect.gen(function* () {
    const name = `payouts_dbfault_${randomUUID().replaceAll("-", "").slice(0, 12)}`
    yield* Effect.scoped(Effect.flatMap(adminClient, (sql) => sql`CREATE DATABASE ${sql(name)}`))
    return name
  }).pipe(Effect.orDie),
  (name) => Effect.scoped(Effect.flatMap(adminClient, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)).pipe(Effect.ignore)
)

/** Cuts every connection the tool holds to `database`; how many. */
const cutConnections = (database: string) =>
  Effect.scoped(
    Effect.flatMap(
      adminClient,
      (sql) => sql<{ cut: boolean }>`SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
        WHERE application_name = 'payouts' AND datname = ${database} AND pid <> pg_backend_pid()`
    )
  ).pipe(
    Effect.map((rows) => rows.filter((r) => r.cut).length),
    Effect.orDie
  )

describe.skipIf(POSTGRES_ADAPTERS.length === 0)("the PostgreSQL store cut mid-run", () => {
  it.scopedLive(
    "connections cut while payouts are sent: retried, each row paid once, the batch finished",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const database = yield* ownDatabase
        const url = new URL(Redacted.value(DATABASE_URL))
        url.pathname = `/${database}`
        const state = url.toString()
        const dir = tempDir("payouts-dbfault-")
        const rows = Array.from({ length: 40 }, (_, i) => ({ id: `D-${i + 1}`, amount: String(4000 + i), phone: ordinaryPhone(300 + i) }))
        const file = writeCsv(dir, "settlements.csv", rows)
        const paid = Effect.map(admin(sandbox).payouts, (p) => p.length)
        const run = start(sandbox, state, ["run", file, "--rate", "15", "--concurrency", "4", ...FAST])
        yield* Effect.addFinalizer(() => Effect.sync(() => run.child.exitCode === null && run.child.kill("SIGKILL")))
        let cuts = 0
        for (const after of [3, 12, 24]) {
          yield* until(`${after} payouts`, Effect.map(paid, (p) => p >= after || run.child.exitCode !== null), 120_000)
          cuts += yield* cutConnections(database)
        }
        expect(cuts).toBeGreaterThan(0)
        const first = yield* run.exit
        if (process.env.PAYOUTS_TEST_VERBOSE !== undefined) console.log(`first run: exit ${first.code}, ${cuts} connection(s) cut\n${first.stderr.slice(-3000)}`)
        // Retried through the cuts (0); or, had the database stayed away, a clear exit 4 and a rerun.
        expect([0, 4], first.stderr).toContain(first.code)
        if (first.code === 4) expect(first.stderr).toMatch(/state store/i)
        const again = yield* cli(sandbox, state, ["run", file, ...FAST])
        expect(again.code, again.stderr).toBe(0)
        const counts = countByToken(yield* admin(sandbox).payouts)
        expect(counts.size).toBe(40)
        expect([...counts.values()].filter((n) => n !== 1)).toEqual([])
        expect((yield* admin(sandbox).invariants).ok).toBe(true)
      }),
    180_000
  )
})
