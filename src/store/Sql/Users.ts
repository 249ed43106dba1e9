/**
 * The console's people and their sessions (DESIGN 13), one SQL for both dialects. A person is found by
 * their name folded (trimmed, lower case): `Ana` and `ana ` are one person. A session is kept by the
 * hash of its id only, so the store (or a copy of it) cannot be used to sign in; removing a person or
 * changing their password ends their sessions.
 */
import { Effect, Option, Schema } from "effect"
import { decoder } from "./Columns.ts"
import { StoreDb } from "./Db.ts"

export const StoredUser = Schema.Struct({
  name: Schema.String,
  role: Schema.String,
  passwordHash: Schema.String,
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export type StoredUser = typeof StoredUser.Type

/** A session as a request sees it: who (their role read now, not when they signed in) and its CSRF token. */
export const StoredSession = Schema.Struct({
  name: Schema.String,
  role: Schema.String,
  csrf: Schema.String,
  lastSeenAt: Schema.Number
})
export type StoredSession = typeof StoredSession.Type

const decodeUsers = decoder(StoredUser)
const decodeSessions = decoder(StoredSession)

/** How a person's name is compared: one person whatever the case or the spaces around it. */
export const personKey = (name: string) => name.trim().toLowerCase()

export const makeUsers = Effect.map(StoreDb, (db) => {
  const { sql } = db
  const USER = sql`SELECT name, role, password_hash, created_at, updated_at FROM console_users`

  const findUser = (name: string) =>
    db.read(sql`${USER} WHERE name_key = ${personKey(name)}`.pipe(Effect.flatMap(decodeUsers), Effect.map((rows) => Option.fromNullable(rows[0]))))

  const listUsers = () => db.read(sql`${USER} ORDER BY name_key`.pipe(Effect.flatMap(decodeUsers)))

  /** False when the name is taken. */
  const addUser = (user: { readonly name: string; readonly role: string; readonly passwordHash: string; readonly at: number }) =>
    db.write(
      sql`INSERT INTO console_users (name_key, name, role, password_hash, created_at, updated_at)
        VALUES (${personKey(user.name)}, ${user.name.trim()}, ${user.role}, ${user.passwordHash}, ${user.at}, ${user.at})
        ON CONFLICT (name_key) DO NOTHING RETURNING name_key`.pipe(Effect.map((rows) => rows.length > 0))
    ).pipe(Effect.withSpan("ConsoleUsers.addUser"))

  /** False when there is no such person. Their sessions end with them. */
  const removeUser = (name: string) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`DELETE FROM console_sessions WHERE name_key = ${personKey(name)}`
        const removed = yield* sql`DELETE FROM console_users WHERE name_key = ${personKey(name)} RETURNING name_key`
        return removed.length > 0
      })
    ).pipe(Effect.withSpan("ConsoleUsers.removeUser"))

  /** False when there is no such person. Every session of theirs ends: whoever knew the old password is out. */
  const setPassword = (name: string, passwordHash: string, at: number) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`DELETE FROM console_sessions WHERE name_key = ${personKey(name)}`
        const changed = yield* sql`UPDATE console_users SET password_hash = ${passwordHash}, updated_at = ${at}
          WHERE name_key = ${personKey(name)} RETURNING name_key`
        return changed.length > 0
      })
    ).pipe(Effect.withSpan("ConsoleUsers.setPassword"))

  const openSession = (session: { readonly idHash: string; readonly name: string; readonly csrf: string; readonly at: number }) =>
    db.write(
      sql`INSERT INTO console_sessions (id_hash, name_key, csrf, created_at, last_seen_at)
        VALUES (${session.idHash}, ${personKey(session.name)}, ${session.csrf}, ${session.at}, ${session.at})`
    ).pipe(Effect.asVoid, Effect.withSpan("ConsoleUsers.openSession"))

  /**
   * The session with this id hash unless idle since before `idleSince` (then it is ended); seen at `at`
   * when `seen` (a person's request, not a page refreshing itself).
   */
  const useSession = (idHash: string, at: number, idleSince: number, seen = true) =>
    db.write(
      Effect.gen(function* () {
        yield* sql`DELETE FROM console_sessions WHERE last_seen_at < ${idleSince}`
        const found = yield* sql`SELECT u.name, u.role, s.csrf, s.last_seen_at FROM console_sessions s
          JOIN console_users u ON u.name_key = s.name_key WHERE s.id_hash = ${idHash}`.pipe(Effect.flatMap(decodeSessions))
        if (found.length === 0) return Option.none<StoredSession>()
        if (!seen) return Option.some(found[0])
        yield* sql`UPDATE console_sessions SET last_seen_at = ${at} WHERE id_hash = ${idHash}`
        return Option.some({ ...found[0], lastSeenAt: at })
      })
    ).pipe(Effect.withSpan("ConsoleUsers.useSession"))

  const closeSession = (idHash: string) =>
    db.write(sql`DELETE FROM console_sessions WHERE id_hash = ${idHash}`).pipe(Effect.asVoid, Effect.withSpan("ConsoleUsers.closeSession"))

  return { findUser, listUsers, addUser, removeUser, setPassword, openSession, useSession, closeSession }
})

/** The console's people and sessions in the state store. */
export class ConsoleUsers extends Effect.Service<ConsoleUsers>()("store/ConsoleUsers", { effect: makeUsers }) {}
