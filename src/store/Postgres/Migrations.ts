/**
 * Schema of the PostgreSQL state store, as code: append a migration, never edit a shipped one.
 * Migration 1 is the SQLite adapter's 0001..0004 at once, with the same tables, columns and meaning;
 * epoch milliseconds and minor units are bigint. Keys that are compared and sorted (ids, references,
 * days, currencies) use the "C" collation, so their order is byte order, as in SQLite.
 * Where SQLite relied on its single writer for "at most one open alarm or halt per account", a
 * partial unique index says it here, across machines.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { backfillIdKeys } from "../IdKeys.ts"
import type { Access } from "./Transaction.ts"

const KEY = `text COLLATE "C"`

const store: ReadonlyArray<string> = [
  `CREATE TABLE batches (
    account_id ${KEY} NOT NULL,
    batch_id ${KEY} NOT NULL,
    file_name text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    state text NOT NULL,
    pause_reason text,
    lease_owner text,
    lease_expires_at bigint,
    lease_fence bigint NOT NULL DEFAULT 0,
    options_json text NOT NULL DEFAULT '{}',
    approved_by text,
    approved_at bigint,
    approved_what text,
    PRIMARY KEY (account_id, batch_id)
  )`,
  `CREATE TABLE rows (
    account_id ${KEY} NOT NULL,
    batch_id ${KEY} NOT NULL,
    idx integer NOT NULL,
    line integer NOT NULL,
    row_id ${KEY},
    token ${KEY} NOT NULL,
    repeat_key ${KEY},
    operator text NOT NULL,
    currency ${KEY} NOT NULL,
    amount_minor bigint,
    phone ${KEY} NOT NULL,
    name text NOT NULL,
    email text NOT NULL,
    description text NOT NULL,
    details_json text NOT NULL DEFAULT '{}',
    state text NOT NULL,
    reference ${KEY},
    fee_minor bigint,
    attempts integer NOT NULL DEFAULT 0,
    error text,
    intent_at bigint,
    submitted_at bigint,
    updated_at bigint NOT NULL,
    final_at bigint,
    ended_at bigint,
    resends integer NOT NULL DEFAULT 0,
    alarm text,
    candidates text,
    intent_owner text,
    PRIMARY KEY (account_id, batch_id, idx),
    FOREIGN KEY (account_id, batch_id) REFERENCES batches (account_id, batch_id)
  )`,
  `CREATE INDEX rows_by_state ON rows (account_id, batch_id, state, idx)`,
  `CREATE INDEX rows_by_row_id ON rows (account_id, row_id) WHERE row_id IS NOT NULL`,
  `CREATE INDEX rows_by_repeat_key ON rows (account_id, repeat_key) WHERE repeat_key IS NOT NULL`,
  `CREATE INDEX rows_by_reference ON rows (account_id, reference) WHERE reference IS NOT NULL`,
  `CREATE INDEX rows_by_token ON rows (account_id, token)`,
  `CREATE INDEX rows_by_submitted ON rows (account_id, submitted_at) WHERE reference IS NOT NULL`,
  `CREATE INDEX rows_by_intent ON rows (account_id, intent_at) WHERE intent_at IS NOT NULL`,
  `CREATE TABLE row_events (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id ${KEY} NOT NULL,
    batch_id ${KEY} NOT NULL,
    idx integer NOT NULL,
    at bigint NOT NULL,
    from_state text,
    to_state text NOT NULL,
    source text NOT NULL,
    detail text
  )`,
  `CREATE INDEX row_events_by_row ON row_events (account_id, batch_id, idx, seq)`,
  `CREATE TABLE listing (
    account_id ${KEY} NOT NULL,
    reference ${KEY} NOT NULL,
    day ${KEY} NOT NULL,
    token ${KEY},
    description text,
    amount_minor bigint NOT NULL,
    currency ${KEY} NOT NULL,
    status text NOT NULL,
    fee_minor bigint,
    created_at text,
    first_seen_at bigint NOT NULL,
    first_seen_prev_read bigint,
    last_seen_at bigint NOT NULL,
    PRIMARY KEY (account_id, reference)
  )`,
  `CREATE INDEX listing_by_token ON listing (account_id, token) WHERE token IS NOT NULL`,
  `CREATE INDEX listing_by_day ON listing (account_id, day)`,
  `CREATE TABLE listing_days (
    account_id ${KEY} NOT NULL,
    day ${KEY} NOT NULL,
    closed integer NOT NULL DEFAULT 0,
    hash text NOT NULL,
    payouts integer NOT NULL,
    max_total bigint NOT NULL,
    reads integer NOT NULL,
    read_at bigint NOT NULL,
    PRIMARY KEY (account_id, day)
  )`,
  `CREATE TABLE account_alarms (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id ${KEY} NOT NULL,
    at bigint NOT NULL,
    reason text NOT NULL,
    cleared_at bigint,
    cleared_by text,
    cleared_why text
  )`,
  `CREATE UNIQUE INDEX account_alarms_open ON account_alarms (account_id) WHERE cleared_at IS NULL`,
  `CREATE TABLE account_halts (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id ${KEY} NOT NULL,
    at bigint NOT NULL,
    by text NOT NULL,
    reason text NOT NULL,
    lifted_at bigint,
    lifted_by text
  )`,
  `CREATE UNIQUE INDEX account_halts_open ON account_halts (account_id) WHERE lifted_at IS NULL`
]

/** Issue 14: an account's small shared values (request budget, currency locks, worker heartbeats); SQLite's 0005. */
const registers: ReadonlyArray<string> = [
  `CREATE TABLE registers (
    account_id ${KEY} NOT NULL,
    name ${KEY} NOT NULL,
    value text NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (account_id, name)
  )`
]

/**
 * DESIGN 12: each claim writes a nonce with its intents, so a claim whose COMMIT was cut off can be
 * settled by reading back: rows found with it were claimed (they may be sent), none were not.
 */
const claimNonce: ReadonlyArray<string> = [
  `ALTER TABLE rows ADD COLUMN claim_nonce text`,
  `CREATE INDEX rows_by_claim_nonce ON rows (account_id, batch_id, claim_nonce) WHERE claim_nonce IS NOT NULL`
]

/** Issue 16: `payouts retry` links a batch to the one it pays again; one child per parent. */
const retries: ReadonlyArray<string> = [
  `CREATE TABLE retries (
    account_id ${KEY} NOT NULL,
    child_batch_id ${KEY} NOT NULL,
    parent_batch_id ${KEY} NOT NULL,
    generation integer NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (account_id, child_batch_id),
    UNIQUE (account_id, parent_batch_id)
  )`
]

/**
 * Claims pick the batch's first validated rows in idx order. rows_by_state serves that only while the
 * planner believes few rows are validated: with statistics taken at a batch's start (every row
 * validated) it preferred the primary key and stepped over every row already claimed, at each claim.
 * This index holds only rows a claim may take, so it is the cheapest path whatever the statistics say.
 */
const claimable: ReadonlyArray<string> = [
  `CREATE INDEX rows_claimable ON rows (account_id, batch_id, idx) WHERE state = 'validated' AND alarm IS NULL`
]

/** Issue 30: one phone, one recipient against history; rows sent or maybe sent only (intent_at set). */
const rowsByPhone: ReadonlyArray<string> = [`CREATE INDEX rows_by_phone ON rows (account_id, phone) WHERE intent_at IS NOT NULL`]

/** A statement, or a step that needs code (a value SQL cannot compute). */
type Statement = string | ((sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError>)

/**
 * Issue 30: ids compared in one canonical form (`canonicalId`: `S-1001`, `s-1001` and a full-width or
 * Cyrillic look-alike are one id), kept beside the id as written; the lookup by id uses it alone.
 * The canonical form of ids already stored is computed in TypeScript (SQL's lower() is ASCII only).
 */
const idKeys: ReadonlyArray<Statement> = [
  `ALTER TABLE rows ADD COLUMN id_key ${KEY}`,
  (sql) => backfillIdKeys(sql, sql`row_id !~ '^[!-~]*$'`),
  `CREATE INDEX rows_by_id_key ON rows (account_id, id_key) WHERE id_key IS NOT NULL`,
  `DROP INDEX rows_by_row_id`
]

/**
 * Issue 31: `retry --fix` children, several per parent (the whole retry stays one per parent), and
 * which parent row each child row pays again, once. The UNIQUE of 4 is found by what it is, not by name.
 */
const rowsRetried: ReadonlyArray<Statement> = [
  `ALTER TABLE retries ADD COLUMN fixes integer NOT NULL DEFAULT 0`,
  `DO $$ DECLARE c text; BEGIN
    FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'retries'::regclass AND contype = 'u' LOOP
      EXECUTE format('ALTER TABLE retries DROP CONSTRAINT %I', c);
    END LOOP;
  END $$`,
  `CREATE UNIQUE INDEX retries_whole_by_parent ON retries (account_id, parent_batch_id) WHERE fixes = 0`,
  `CREATE TABLE rows_retried (
    account_id ${KEY} NOT NULL,
    child_batch_id ${KEY} NOT NULL,
    child_idx integer NOT NULL,
    child_line integer NOT NULL,
    parent_batch_id ${KEY} NOT NULL,
    parent_idx integer NOT NULL,
    parent_line integer NOT NULL,
    PRIMARY KEY (account_id, child_batch_id, child_idx)
  )`,
  `CREATE UNIQUE INDEX rows_retried_by_parent ON rows_retried (account_id, parent_batch_id, parent_idx)`
]

/** Issue 34: the console's people and sessions, and why a halt was lifted; SQLite's 0010. */
const consolePeople: ReadonlyArray<string> = [
  `CREATE TABLE console_users (
    name_key ${KEY} PRIMARY KEY,
    name text NOT NULL,
    role text NOT NULL,
    password_hash text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`,
  `CREATE TABLE console_sessions (
    id_hash ${KEY} PRIMARY KEY,
    name_key ${KEY} NOT NULL,
    csrf text NOT NULL,
    created_at bigint NOT NULL,
    last_seen_at bigint NOT NULL
  )`,
  `CREATE INDEX console_sessions_by_user ON console_sessions (name_key)`,
  `ALTER TABLE account_halts ADD COLUMN lifted_reason text`
]

export const MIGRATIONS: ReadonlyArray<readonly [id: number, name: string, statements: ReadonlyArray<Statement>]> = [
  [1, "store", store],
  [2, "registers", registers],
  [3, "claim_nonce", claimNonce],
  [4, "retries", retries],
  [5, "claimable", claimable],
  [6, "rows_by_phone", rowsByPhone],
  [7, "id_keys", idKeys],
  [8, "rows_retried", rowsRetried],
  [9, "console_people", consolePeople]
]

export const MIGRATIONS_TABLE = "store_migrations"

/** Namespace of the advisory lock (with the schema's hash): workers starting together migrate one at a time. */
export const MIGRATION_LOCK = 0x70617930

const Applied = Schema.Array(Schema.Struct({ migrationId: Schema.Int }))

/**
 * Creates the schema if needed and applies the migrations it lacks, in one transaction under
 * pg_advisory_xact_lock: a second worker starting at the same moment waits, then finds them applied.
 */
export const runMigrations = (db: Access, schema: string) => {
  const { sql } = db
  return db.write(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}::int4, hashtext(${schema}))`
      // CREATE SCHEMA IF NOT EXISTS needs the right to create one even when it exists: ask first.
      const exists = yield* sql`SELECT 1 AS found FROM pg_namespace WHERE nspname = ${schema}`
      if (exists.length === 0) yield* sql`CREATE SCHEMA ${sql(schema)}`
      yield* sql`SET LOCAL search_path TO ${sql(schema)}`
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(MIGRATIONS_TABLE)} (
        migration_id integer PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`
      const applied = yield* sql`SELECT migration_id FROM ${sql(MIGRATIONS_TABLE)}`.pipe(
        Effect.flatMap((rows) => Effect.orDie(Schema.decodeUnknown(Applied)(rows)))
      )
      const done = new Set(applied.map((m) => m.migrationId))
      for (const [id, name, statements] of MIGRATIONS) {
        if (done.has(id)) continue
        for (const statement of statements) yield* typeof statement === "string" ? sql.unsafe(statement) : statement(sql)
        yield* sql`INSERT INTO ${sql(MIGRATIONS_TABLE)} ${sql.insert({ migration_id: id, name })}`
      }
    })
  ).pipe(Effect.withSpan("Store.migrate"))
}
