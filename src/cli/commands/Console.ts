/**
 * `payouts console`: the web console over the state store (DESIGN 13), and `payouts users`, the
 * people who may sign in to it. The commands; their handlers are in ../handlers/Console.ts and
 * ../handlers/Users.ts (loaded on use).
 */
import { Args, Command, Options } from "@effect/cli"
import { Duration } from "effect"
import { ROLES } from "../../console/Roles.ts"
import { approverOptions } from "../ApprovalOptions.ts"
import { durationOption } from "../Duration.ts"
import { withDefault } from "../help/Defaults.ts"
import { jsonOption } from "../Output.ts"
import { jobsStateOption } from "../JobOptions.ts"
import { connectionOptions, redirectOptions } from "../Settings.ts"

export const DEFAULT_CONSOLE_LISTEN = "127.0.0.1:8470"

export const consoleCommand = Command.make("console", {
  state: jobsStateOption,
  connection: connectionOptions,
  redirects: redirectOptions,
  jobs: Options.directory("jobs").pipe(
    Options.withDescription("The job folder whose batches awaiting approval the Approvals page shows (and whose store it uses)."),
    Options.optional
  ),
  listen: withDefault(Options.text("listen").pipe(Options.withPseudoName("HOST:PORT")), DEFAULT_CONSOLE_LISTEN, "Where the console listens (port 0 picks a free one)."),
  tlsCert: Options.file("tls-cert").pipe(Options.withPseudoName("FILE"), Options.withDescription("Serve HTTPS with this certificate (PEM), with --tls-key."), Options.optional),
  tlsKey: Options.file("tls-key").pipe(Options.withPseudoName("FILE"), Options.withDescription("The certificate's private key (PEM)."), Options.optional),
  behindProxy: Options.boolean("behind-proxy").pipe(
    Options.withDescription("A proxy serves HTTPS in front: answer only requests it forwards with X-Forwarded-Proto: https.")
  ),
  idleTimeout: withDefault(durationOption("idle-timeout"), Duration.minutes(30), "A session idle this long is closed: sign in again."),
  ...approverOptions
}).pipe(
  Command.withDescription(
    "Serve the web console: batches live, approvals, rows needing a person, workers, the account and its halt. Only on this machine unless given TLS or a proxy."
  )
)

export const usersCommand = Command.make("users", {
  action: Args.choice([["add", "add"], ["list", "list"], ["remove", "remove"], ["passwd", "passwd"]] as const, { name: "ACTION" }).pipe(
    Args.withDescription("add NAME, list, remove NAME, or passwd NAME (a new password).")
  ),
  name: Args.text({ name: "NAME" }).pipe(Args.withDescription("The person (their sign-in name)."), Args.optional),
  state: jobsStateOption,
  jobs: Options.directory("jobs").pipe(Options.withDescription("Use the store this job folder is pinned to, as the console given --jobs does."), Options.optional),
  role: Options.choice("role", ROLES).pipe(Options.withDescription("What the person may do: viewer sees; approver approves; operator resolves and halts; admin all."), Options.optional),
  passwordStdin: Options.boolean("password-stdin").pipe(Options.withDescription("Read the password from standard input (its first line).")),
  json: jsonOption
}).pipe(Command.withDescription("Manage the people who may sign in to the console: add, list, remove, or set a new password."))
