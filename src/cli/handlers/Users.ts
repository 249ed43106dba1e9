/**
 * `payouts users`: the people who may sign in to the console, kept in the state store (DESIGN 13).
 * A password is only ever read from standard input (`--password-stdin`): never an argument, which
 * `ps` and the shell's history would show.
 */
import { Clock, Console, DateTime, Effect, Layer, Option } from "effect"
import { passwordProblem, hashPassword } from "../../console/Password.ts"
import { type ApprovalError, personName } from "../../jobs/Approval.ts"
import { userFormat } from "../../output/Format.ts"
import { ConsoleUsers } from "../../store/Sql/Users.ts"
import type { usersCommand } from "../commands/Console.ts"
import { UsageError } from "../Errors.ts"
import { refusalText } from "../JobNoteText.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { announceStore, storeFor } from "../StoreLocation.ts"
import { openStore } from "../StoreOpen.ts"
import { renderTable, screenFit } from "../Table.ts"

type Args = Parsed<typeof usersCommand>

/** Standard input to its end; the password is its first line (a trailing newline is not part of it). */
const readStdin = Effect.async<string>((resume) => {
  const chunks: Array<Buffer> = []
  process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk))
  process.stdin.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
  process.stdin.on("error", () => resume(Effect.succeed("")))
})

const newPassword = (args: Args) =>
  Effect.gen(function* () {
    if (!args.passwordStdin) return yield* new UsageError({ reason: `users ${args.action} needs --password-stdin: the password is read from standard input, never from the command line` })
    if (process.stdin.isTTY === true) yield* Console.error("Password (then Enter and Ctrl-D):")
    const password = (yield* readStdin).split(/\r?\n/)[0] ?? ""
    const problem = passwordProblem(password)
    if (problem !== undefined) return yield* new UsageError({ reason: problem })
    return yield* hashPassword(password)
  })

const nameOf = (args: Args) =>
  Option.match(args.name, {
    onNone: () => Effect.fail(new UsageError({ reason: `users ${args.action} needs the person's NAME` })),
    onSome: (name) => Effect.mapError(personName("NAME", name), (e: ApprovalError) => new UsageError({ reason: refusalText(e.refusal) }))
  })

const list = (args: Args) =>
  Effect.gen(function* () {
    const people = yield* (yield* ConsoleUsers).listUsers()
    const views = people.map((p) => ({ name: p.name, role: p.role, created_at: DateTime.formatIso(DateTime.unsafeMake(p.createdAt)), updated_at: DateTime.formatIso(DateTime.unsafeMake(p.updatedAt)) }))
    if (args.json) return yield* printJson(views)
    if (views.length === 0) return yield* Console.log("Nobody may sign in to the console yet (add someone: payouts users add NAME --role admin --password-stdin).")
    const f = yield* userFormat
    type View = (typeof views)[number]
    const col = (header: string, value: (v: View) => string) => ({ header, value, align: "left" as const })
    yield* Console.log(renderTable([col("name", (v) => v.name), col("role", (v) => v.role), col("added", (v) => f.time(v.created_at)), col("password set", (v) => f.time(v.updated_at))], views, screenFit(false)))
  })

const act = (args: Args) =>
  Effect.gen(function* () {
    if (args.action === "list") return yield* list(args)
    const users = yield* ConsoleUsers
    const name = yield* nameOf(args)
    const now = yield* Clock.currentTimeMillis
    if (args.action === "add") {
      if (Option.isNone(args.role)) return yield* new UsageError({ reason: "users add needs --role viewer|approver|operator|admin" })
      const added = yield* users.addUser({ name, role: args.role.value, passwordHash: yield* newPassword(args), at: now })
      if (!added) return yield* new UsageError({ reason: `${name} is already a console user (a new password: payouts users passwd ${name} --password-stdin)` })
      return yield* Console.log(`Added ${name} (${args.role.value}): they may sign in to the console.`)
    }
    if (Option.isSome(args.role)) return yield* new UsageError({ reason: `--role goes with users add, not users ${args.action}` })
    if (args.action === "remove") {
      if (!(yield* users.removeUser(name))) return yield* new UsageError({ reason: `no console user ${name}` })
      return yield* Console.log(`Removed ${name}: their sessions are closed.`)
    }
    const hash = yield* newPassword(args)
    if (!(yield* users.setPassword(name, hash, now))) return yield* new UsageError({ reason: `no console user ${name}` })
    yield* Console.log(`New password set for ${name}: their other sessions are closed.`)
  })

export const users = (args: Args) =>
  act(args).pipe(Effect.provide(Layer.unwrapEffect(Effect.map(Effect.tap(storeFor(args.state, Option.getOrUndefined(args.jobs)), announceStore), openStore))))
