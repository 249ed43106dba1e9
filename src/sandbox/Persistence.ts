/**
 * The `dataFile` option: the sandbox's state in SQLite, so it lives across restarts. Each save writes,
 * in one transaction, the transactions changed since the last save, the new journal entries, the
 * wallets and the clock's lead over real time. Without a data file nothing is stored.
 */
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { decodeEntry, decodeTransaction, decodeWallets } from "./Saved.ts"
import { makeState, restoreTransaction, type SandboxState } from "./State.ts"

/** Marks a change that touches no transaction (a clock advance), so the next save runs. */
export const CLOCK_MOVED = "__clock__"

export interface Store {
  readonly load: (now: number) => Effect.Effect<Option.Option<{ readonly state: SandboxState; readonly lead: number }>, unknown>
  readonly save: (state: SandboxState, lead: number) => Effect.Effect<void>
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
    let savedJournal = 0
    const lock = yield* Effect.makeSemaphore(1)

    const load = (now: number) =>
      Effect.gen(function* () {
        const meta = new Map((yield* sql<{ key: string; value: string }>`SELECT key, value FROM sandbox_meta`).map((r) => [r.key, r.value]))
        const instance = meta.get("instance")
        if (instance === undefined) return Option.none()
        const state = makeState(instance, now)
        state.seq = Number(meta.get("seq") ?? 0)
        // Copied into mutable records: the state's figures change in place after a restore.
        for (const [id, wallet] of Object.entries(yield* decodeWallets(meta.get("wallets") ?? "{}"))) state.wallets[id] = { ...wallet }
        for (const row of yield* sql<{ body: string }>`SELECT body FROM sandbox_transactions ORDER BY seq`) {
          restoreTransaction(state, { ...(yield* decodeTransaction(row.body)) })
        }
        for (const row of yield* sql<{ body: string }>`SELECT body FROM sandbox_journal ORDER BY seq`) {
          state.journal.push(yield* decodeEntry(row.body))
        }
        savedJournal = state.journal.length
        return Option.some({ state, lead: Number(meta.get("lead") ?? 0) })
      })

    const save = (state: SandboxState, lead: number) => {
      const captured = Effect.sync(() => {
        const changed = [...state.touched].flatMap((ref) => {
          const txn = state.transactions[ref]
          return txn === undefined ? [] : [{ reference: ref, seq: txn.seq, body: JSON.stringify(txn) }]
        })
        state.touched.clear()
        const entries = state.journal.slice(savedJournal).map((e) => ({ seq: e.seq, body: JSON.stringify(e) }))
        savedJournal = state.journal.length
        const meta = [
          { key: "instance", value: state.instance },
          { key: "seq", value: String(state.seq) },
          { key: "wallets", value: JSON.stringify(state.wallets) },
          { key: "lead", value: String(lead) }
        ]
        return { changed, entries, meta }
      })
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
        lock.withPermits(1),
        Effect.catchAllCause((cause) => Effect.logError("sandbox: cannot save its state", cause))
      )
    }
    return { load, save }
  })
