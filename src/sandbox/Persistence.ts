/**
 * The `dataFile` option: the sandbox's state in SQLite, so it lives across restarts. Each save writes,
 * in one transaction, the transactions changed since the last save, the new journal entries, the
 * wallets and the clock's lead over real time. Without a data file nothing is stored.
 */
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Context, Effect, Layer, List, Option, Ref, type Scope } from "effect"
import { decodeEntry, decodeTransaction, decodeWallets } from "./Saved.ts"
import { journalAfter, makeState, restoreTransaction, type SandboxState, touchedOf, txnOf, untouched, type World } from "./State.ts"

/** Marks a change that touches no transaction (a clock advance), so the next save runs. */
export const CLOCK_MOVED = "__clock__"

export interface Store {
  readonly load: (now: number) => Effect.Effect<Option.Option<{ readonly state: SandboxState; readonly lead: number }>, unknown>
  /** Takes what changed from the state (clearing `touched` in the same step) and writes it. */
  readonly save: (world: World, lead: number) => Effect.Effect<void>
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS sandbox_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS sandbox_transactions (reference TEXT PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS sandbox_journal (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)"
]

export const openStore = (filename: string): Effect.Effect<Store, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(SqliteClient.layer({ filename }))
    const sql = Context.get(context, SqlClient.SqlClient)
    yield* sql`PRAGMA journal_mode = WAL`
    for (const statement of SCHEMA) yield* sql.unsafe(statement)
    /** How many journal entries the file holds. */
    const savedJournal = yield* Ref.make(0)
    const lock = yield* Effect.makeSemaphore(1)

    const load = (now: number) =>
      Effect.gen(function* () {
        const meta = new Map((yield* sql<{ key: string; value: string }>`SELECT key, value FROM sandbox_meta`).map((r) => [r.key, r.value]))
        const instance = meta.get("instance")
        if (instance === undefined) return Option.none()
        const wallets = yield* decodeWallets(meta.get("wallets") ?? "{}")
        const rows = yield* sql<{ body: string }>`SELECT body FROM sandbox_transactions ORDER BY seq`
        const txns = yield* Effect.forEach(rows, (row) => decodeTransaction(row.body))
        const entries = yield* Effect.forEach(yield* sql<{ body: string }>`SELECT body FROM sandbox_journal ORDER BY seq`, (row) => decodeEntry(row.body))
        const base = makeState(instance, now)
        const state: SandboxState = {
          ...txns.reduce(restoreTransaction, base),
          seq: Number(meta.get("seq") ?? 0),
          wallets: { ...base.wallets, ...wallets },
          journal: List.reverse(List.fromIterable(entries)),
          journalSize: entries.length
        }
        yield* Ref.set(savedJournal, entries.length)
        return Option.some({ state, lead: Number(meta.get("lead") ?? 0) })
      })

    const save = (world: World, lead: number) => {
      const captured = Effect.flatMap(Ref.get(savedJournal), (saved) =>
        Ref.modify(world, (state) => {
          const changed = Array.from(touchedOf(state)).flatMap((ref) => {
            const txn = txnOf(state, ref)
            return txn === undefined ? [] : [{ reference: ref, seq: txn.seq, body: JSON.stringify(txn) }]
          })
          const entries = journalAfter(state, saved).map((e) => ({ seq: e.seq, body: JSON.stringify(e) }))
          const meta = [
            { key: "instance", value: state.instance },
            { key: "seq", value: String(state.seq) },
            { key: "wallets", value: JSON.stringify(state.wallets) },
            { key: "lead", value: String(lead) }
          ]
          return [{ changed, entries, meta, size: state.journalSize }, untouched(state)]
        })
      ).pipe(Effect.tap(({ size }) => Ref.set(savedJournal, size)))
      return captured.pipe(
        Effect.flatMap(({ changed, entries, meta }) =>
          sql.withTransaction(
            Effect.gen(function* () {
              for (const m of meta) yield* sql`INSERT OR REPLACE INTO sandbox_meta ${sql.insert(m)}`
              for (const t of changed) yield* sql`INSERT OR REPLACE INTO sandbox_transactions ${sql.insert(t)}`
              for (const e of entries) yield* sql`INSERT OR REPLACE INTO sandbox_journal ${sql.insert(e)}`
            })
          )
        ),
        // One save at a time, its capture included, so the journal's saved count moves in step.
        lock.withPermits(1),
        Effect.catchAllCause((cause) => Effect.logError("sandbox: cannot save its state", cause))
      )
    }
    return { load, save }
  })
