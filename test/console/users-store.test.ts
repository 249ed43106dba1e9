/**
 * The console's people and sessions in the state store (issue 34), on SQLite and, where the contract
 * suite runs it, PostgreSQL: one SQL for both (store/Sql/Users.ts). Names are one person whatever the
 * case; a session is found by its id's hash, joined with the person's role as it is now; an idle
 * session is gone; a new password or a removal ends the person's sessions; a lift keeps its reason.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { checkPassword, hashPassword, passwordProblem } from "../../src/console/Password.ts"
import { AccountId } from "../../src/domain/Ids.ts"
import * as PostgresStateStore from "../../src/store/PostgresStateStore.ts"
import type { StoreError } from "../../src/store/Model.ts"
import type { StoreServices } from "../../src/store/Sql/Store.ts"
import { ConsoleUsers } from "../../src/store/Sql/Users.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { handlesOf } from "../kit/Store.ts"
import { tempDbPath } from "../store/fixtures.ts"
import { DATABASE_URL, freshSchema, POSTGRES_ADAPTERS } from "../store/postgres.ts"

interface Adapter {
  readonly name: string
  readonly open: Effect.Effect<Context.Context<StoreServices>, StoreError, Scope.Scope>
}

const SQLITE: Adapter = { name: "SQLite", open: Effect.flatMap(tempDbPath, (filename) => Layer.build(SqliteStateStore.layer({ filename }))) }
const POSTGRES: Adapter = {
  name: "PostgreSQL",
  open: Effect.flatMap(freshSchema, (schema) => Layer.build(PostgresStateStore.layer({ url: DATABASE_URL, schema, maxConnections: 3 })))
}
const ADAPTERS = [SQLITE, ...(POSTGRES_ADAPTERS.length > 0 ? [POSTGRES] : [])]

describe("passwords", () => {
  it.live("scrypt with a random salt, its parameters kept; checked in constant time; an absent hash is never a match", () =>
    Effect.gen(function* () {
      const one = yield* hashPassword("correct horse battery")
      const two = yield* hashPassword("correct horse battery")
      expect(one).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
      expect(one).not.toBe(two)
      expect(yield* checkPassword("correct horse battery", one)).toBe(true)
      expect(yield* checkPassword("correct horse batterY", one)).toBe(false)
      expect(yield* checkPassword("correct horse battery", undefined)).toBe(false)
      expect(yield* checkPassword("correct horse battery", "plain text")).toBe(false)
      expect(passwordProblem("short")).toMatch(/at least 10/)
      expect(passwordProblem("long enough here")).toBeUndefined()
    }))
})

describe.each(ADAPTERS)("console people and sessions ($name)", (adapter) => {
  it.scoped("people: added once whatever the case, listed, given a new password, removed; their sessions end with either", () =>
    Effect.gen(function* () {
      const context = yield* adapter.open
      const users = Context.get(context, ConsoleUsers)
      expect(yield* users.addUser({ name: " Alice ", role: "operator", passwordHash: "h1", at: 1_000 })).toBe(true)
      expect(yield* users.addUser({ name: "ALICE", role: "viewer", passwordHash: "h2", at: 2_000 })).toBe(false)
      expect(yield* users.addUser({ name: "bob", role: "viewer", passwordHash: "h3", at: 3_000 })).toBe(true)
      expect((yield* users.listUsers()).map((u) => [u.name, u.role, u.createdAt])).toEqual([["Alice", "operator", 1_000], ["bob", "viewer", 3_000]])
      expect(Option.map(yield* users.findUser("alice"), (u) => u.passwordHash)).toEqual(Option.some("h1"))

      yield* users.openSession({ idHash: "s-alice-1", name: "alice", csrf: "t1", at: 10_000 })
      yield* users.openSession({ idHash: "s-bob-1", name: "bob", csrf: "t2", at: 10_000 })
      expect(yield* users.useSession("s-alice-1", 11_000, 0)).toEqual(Option.some({ name: "Alice", role: "operator", csrf: "t1", lastSeenAt: 11_000 }))
      expect(yield* users.useSession("unknown", 11_000, 0)).toEqual(Option.none())

      expect(yield* users.setPassword("ALICE", "h9", 12_000)).toBe(true)
      expect(Option.map(yield* users.findUser("Alice"), (u) => [u.passwordHash, u.updatedAt])).toEqual(Option.some(["h9", 12_000]))
      expect(yield* users.useSession("s-alice-1", 12_500, 0)).toEqual(Option.none())
      expect(yield* users.setPassword("carol", "h0", 12_000)).toBe(false)

      expect(yield* users.removeUser("bob")).toBe(true)
      expect(yield* users.useSession("s-bob-1", 13_000, 0)).toEqual(Option.none())
      expect(yield* users.removeUser("bob")).toBe(false)
      expect((yield* users.listUsers()).map((u) => u.name)).toEqual(["Alice"])
    }))

  it.scoped("a session idle since before the cut-off is gone; one seen since stays, seen again; a closed one is gone", () =>
    Effect.gen(function* () {
      const context = yield* adapter.open
      const users = Context.get(context, ConsoleUsers)
      yield* users.addUser({ name: "alice", role: "admin", passwordHash: "h", at: 0 })
      yield* users.openSession({ idHash: "old", name: "alice", csrf: "a", at: 1_000 })
      yield* users.openSession({ idHash: "new", name: "alice", csrf: "b", at: 5_000 })
      // Idle since 2,000 or before: "old" (last seen 1,000) is gone, "new" stays.
      expect(yield* users.useSession("new", 6_000, 2_000)).toEqual(Option.some({ name: "alice", role: "admin", csrf: "b", lastSeenAt: 6_000 }))
      expect(yield* users.useSession("old", 6_000, 0)).toEqual(Option.none())
      // A refresh (not seen) finds it without moving its last sight.
      expect(Option.map(yield* users.useSession("new", 9_000, 2_000, false), (x) => x.lastSeenAt)).toEqual(Option.some(6_000))
      expect(yield* users.useSession("new", 9_500, 6_500, false)).toEqual(Option.none())
      yield* users.openSession({ idHash: "new", name: "alice", csrf: "b", at: 9_600 })
      yield* users.closeSession("new")
      expect(yield* users.useSession("new", 6_100, 0)).toEqual(Option.none())
    }))

  it.scoped("a halt is lifted with a reason as well as a name (lifted_reason, migration 0010 / 9)", () =>
    Effect.gen(function* () {
      const context = yield* adapter.open
      const account = handlesOf(context).account(AccountId.make("acct-console"))
      expect(yield* account.haltAccount({ at: 1, by: "olga", reason: "wrong file" })).toBe(true)
      expect(yield* account.liftHalt("olga", 2, "file replaced")).toBe(1)
      expect(yield* account.activeHalt()).toEqual(Option.none())
    }))
})
