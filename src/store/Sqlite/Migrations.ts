/** Schema of the SQLite state store, as code: append a migration, never edit a shipped one. */
import * as Migrator from "@effect/sql/Migrator"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { backfillIdKeys } from "../IdKeys.ts"

const initial = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE batches (
    account_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    file_name TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    state TEXT NOT NULL,
    pause_reason TEXT,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    options_json TEXT NOT NULL DEFAULT '{}',
    approved_by TEXT,
    approved_at INTEGER,
    PRIMARY KEY (account_id, batch_id)
  )`
  yield* sql`CREATE TABLE rows (
    account_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    line INTEGER NOT NULL,
    row_id TEXT,
    token TEXT NOT NULL,
    repeat_key TEXT,
    operator TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount_minor INTEGER,
    phone TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    description TEXT NOT NULL,
    details_json TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL,
    reference TEXT,
    fee_minor INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    intent_at INTEGER,
    submitted_at INTEGER,
    updated_at INTEGER NOT NULL,
    final_at INTEGER,
    PRIMARY KEY (account_id, batch_id, idx),
    FOREIGN KEY (account_id, batch_id) REFERENCES batches (account_id, batch_id)
  )`
  yield* sql`CREATE INDEX rows_by_state ON rows (account_id, batch_id, state, idx)`
  yield* sql`CREATE INDEX rows_by_row_id ON rows (account_id, row_id) WHERE row_id IS NOT NULL`
  yield* sql`CREATE INDEX rows_by_repeat_key ON rows (account_id, repeat_key) WHERE repeat_key IS NOT NULL`
  yield* sql`CREATE INDEX rows_by_reference ON rows (account_id, reference) WHERE reference IS NOT NULL`
  yield* sql`CREATE INDEX rows_by_token ON rows (account_id, token)`
  yield* sql`CREATE TABLE row_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    at INTEGER NOT NULL,
    from_state TEXT,
    to_state TEXT NOT NULL,
    source TEXT NOT NULL,
    detail TEXT
  )`
  yield* sql`CREATE INDEX row_events_by_row ON row_events (account_id, batch_id, idx, seq)`
})

/**
 * Reconciliation that never guesses (DESIGN 7): the listing mirror by UTC day, account alarms, and per
 * row what a resend decision needs (when the ambiguous POST ended, automatic resends, the alarm and its
 * candidates, which runner wrote the intent).
 */
const mirror = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE rows ADD COLUMN ended_at INTEGER`
  yield* sql`ALTER TABLE rows ADD COLUMN resends INTEGER NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE rows ADD COLUMN alarm TEXT`
  yield* sql`ALTER TABLE rows ADD COLUMN candidates TEXT`
  yield* sql`ALTER TABLE rows ADD COLUMN intent_owner TEXT`
  yield* sql`CREATE INDEX rows_by_submitted ON rows (account_id, submitted_at) WHERE reference IS NOT NULL`
  yield* sql`CREATE TABLE listing (
    account_id TEXT NOT NULL,
    reference TEXT NOT NULL,
    day TEXT NOT NULL,
    token TEXT,
    description TEXT,
    amount_minor INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    fee_minor INTEGER,
    created_at TEXT,
    first_seen_at INTEGER NOT NULL,
    first_seen_prev_read INTEGER,
    last_seen_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, reference)
  )`
  yield* sql`CREATE INDEX listing_by_token ON listing (account_id, token) WHERE token IS NOT NULL`
  yield* sql`CREATE INDEX listing_by_day ON listing (account_id, day)`
  yield* sql`CREATE TABLE listing_days (
    account_id TEXT NOT NULL,
    day TEXT NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0,
    hash TEXT NOT NULL,
    payouts INTEGER NOT NULL,
    max_total INTEGER NOT NULL,
    reads INTEGER NOT NULL,
    read_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, day)
  )`
  yield* sql`CREATE TABLE account_alarms (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    reason TEXT NOT NULL,
    cleared_at INTEGER,
    cleared_by TEXT,
    cleared_why TEXT
  )`
})

/** Fencing (DESIGN 7): a number that grows with every new lease of a batch. */
const fence = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE batches ADD COLUMN lease_fence INTEGER NOT NULL DEFAULT 0`
})

/** Issue 12: what an approval bound (hash and totals), and the account-wide halt. */
const approvalsAndHalts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE batches ADD COLUMN approved_what TEXT`
  yield* sql`CREATE TABLE account_halts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    by TEXT NOT NULL,
    reason TEXT NOT NULL,
    lifted_at INTEGER,
    lifted_by TEXT
  )`
  yield* sql`CREATE INDEX rows_by_intent ON rows (account_id, intent_at) WHERE intent_at IS NOT NULL`
})

/** Issue 14: an account's small shared values (request budget, currency locks, worker heartbeats). */
const registers = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE registers (
    account_id TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, name)
  )`
})

/** Issue 16: `payouts retry` links a batch to the one it pays again; one child per parent. */
const retries = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE retries (
    account_id TEXT NOT NULL,
    child_batch_id TEXT NOT NULL,
    parent_batch_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, child_batch_id),
    UNIQUE (account_id, parent_batch_id)
  )`
})

/** Issue 30: one phone, one recipient against history; rows sent or maybe sent only (intent_at set). */
const rowsByPhone = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX rows_by_phone ON rows (account_id, phone) WHERE intent_at IS NOT NULL`
})

/**
 * Issue 30: ids compared in one canonical form (`canonicalId`: `S-1001`, `s-1001` and a full-width or
 * Cyrillic look-alike are one id), kept beside the id as written; the lookup by id uses it alone.
 */
const idKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE rows ADD COLUMN id_key TEXT`
  yield* backfillIdKeys(sql, sql`row_id GLOB '*[^!-~]*'`)
  yield* sql`CREATE INDEX rows_by_id_key ON rows (account_id, id_key) WHERE id_key IS NOT NULL`
  yield* sql`DROP INDEX rows_by_row_id`
})

/**
 * Issue 31: `retry --fix` children, several per parent (the whole retry stays one per parent), and
 * which parent row each child row pays again, once: SQLite cannot drop a table's UNIQUE, so `retries`
 * is rebuilt.
 */
const rowsRetried = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE retries_rebuilt (
    account_id TEXT NOT NULL,
    child_batch_id TEXT NOT NULL,
    parent_batch_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    fixes INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, child_batch_id)
  )`
  yield* sql`INSERT INTO retries_rebuilt (account_id, child_batch_id, parent_batch_id, generation, created_at)
    SELECT account_id, child_batch_id, parent_batch_id, generation, created_at FROM retries`
  yield* sql`DROP TABLE retries`
  yield* sql`ALTER TABLE retries_rebuilt RENAME TO retries`
  yield* sql`CREATE UNIQUE INDEX retries_whole_by_parent ON retries (account_id, parent_batch_id) WHERE fixes = 0`
  yield* sql`CREATE TABLE rows_retried (
    account_id TEXT NOT NULL,
    child_batch_id TEXT NOT NULL,
    child_idx INTEGER NOT NULL,
    child_line INTEGER NOT NULL,
    parent_batch_id TEXT NOT NULL,
    parent_idx INTEGER NOT NULL,
    parent_line INTEGER NOT NULL,
    PRIMARY KEY (account_id, child_batch_id, child_idx)
  )`
  yield* sql`CREATE UNIQUE INDEX rows_retried_by_parent ON rows_retried (account_id, parent_batch_id, parent_idx)`
})

/**
 * Issue 34: the console's people (name, role, scrypt hash with its parameters) and their sessions
 * (the id hashed: a copied database opens no session), and why a halt was lifted.
 */
const consolePeople = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE console_users (
    name_key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`
  yield* sql`CREATE TABLE console_sessions (
    id_hash TEXT PRIMARY KEY,
    name_key TEXT NOT NULL,
    csrf TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX console_sessions_by_user ON console_sessions (name_key)`
  yield* sql`ALTER TABLE account_halts ADD COLUMN lifted_reason TEXT`
})

export const loader = Migrator.fromRecord({
  "0001_initial": initial,
  "0002_mirror": mirror,
  "0003_fence": fence,
  "0004_approvals_halts": approvalsAndHalts,
  "0005_registers": registers,
  "0006_retries": retries,
  "0007_rows_by_phone": rowsByPhone,
  "0008_id_keys": idKeys,
  "0009_rows_retried": rowsRetried,
  "0010_console_people": consolePeople
})

export const MIGRATIONS_TABLE = "store_migrations"

export const runMigrations = Migrator.make({})({ loader, table: MIGRATIONS_TABLE })
