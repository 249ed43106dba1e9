/**
 * The `payouts` command tree. Only the commands' names, options and descriptions are loaded at start
 * (from ./commands); each handler is imported when its command runs (./Lazy.ts), so `--help` and a
 * look-up do not pay for the sandbox, the SQL drivers, the phone metadata or the run engine.
 */
import { Command } from "@effect/cli"
import { NodeFileSystem, NodePath, NodeRuntime, NodeTerminal } from "@effect/platform-node"
import type { Console } from "effect"
import { Context, Effect, HashMap, Layer } from "effect"
import { approveCommand, rejectCommand } from "./commands/Approve.ts"
import { batchesCommand } from "./commands/Batches.ts"
import { configCommand } from "./commands/Config.ts"
import { consoleCommand, usersCommand } from "./commands/Console.ts"
import { haltCommand } from "./commands/Halt.ts"
import { ledgerCommand } from "./commands/Ledger.ts"
import { reconcileCommand } from "./commands/Reconcile.ts"
import { resolveCommand } from "./commands/Resolve.ts"
import { resumeCommand } from "./commands/Resume.ts"
import { retryCommand } from "./commands/Retry.ts"
import { runCommand, validateCommand } from "./commands/Run.ts"
import { sandboxCommand } from "./commands/Sandbox.ts"
import { statusCommand } from "./commands/Status.ts"
import { summaryCommand } from "./commands/Summary.ts"
import { transactionsCommand } from "./commands/Transactions.ts"
import { walletCommand } from "./commands/Wallet.ts"
import { watchCommand } from "./commands/Watch.ts"
import { workersCommand } from "./commands/Workers.ts"
import { report, teardown, withInterruptExit } from "./Failure.ts"
import { UtcTimes } from "../output/Format.ts"
import { takeUtc } from "./Argv.ts"
import { answerCompletions, answerHelp, refuseBuiltIns, strayOption } from "./help/Help.ts"
import { profileLayer } from "./config/Profile.ts"
import { lazy } from "./Lazy.ts"
import { NoticesLive } from "./Notices.ts"
import { withTraces } from "./Traces.ts"

const PROGRAM = { name: "payouts", version: "0.1.0", description: "Pay many people through the mobile-money payout API, exactly once." }

const payouts = Command.make("payouts").pipe(
  Command.withDescription(PROGRAM.description),
  Command.withSubcommands([
    Command.withHandler(runCommand, lazy("run", () => import("./handlers/Run.ts"), (m) => m.run)),
    Command.withHandler(validateCommand, lazy("validate", () => import("./handlers/Validate.ts"), (m) => m.validate)),
    Command.withHandler(sandboxCommand, lazy("sandbox", () => import("./handlers/Sandbox.ts"), (m) => m.sandbox)),
    Command.withHandler(walletCommand, lazy("wallet", () => import("./handlers/Wallet.ts"), (m) => m.wallet)),
    Command.withHandler(transactionsCommand, lazy("transactions", () => import("./handlers/Transactions.ts"), (m) => m.transactions)),
    Command.withHandler(summaryCommand, lazy("summary", () => import("./handlers/Summary.ts"), (m) => m.summary)),
    Command.withHandler(statusCommand, lazy("status", () => import("./handlers/Status.ts"), (m) => m.status)),
    Command.withHandler(watchCommand, lazy("watch", () => import("./handlers/Watch.ts"), (m) => m.watch)),
    Command.withHandler(approveCommand, lazy("approve", () => import("./handlers/Approve.ts"), (m) => m.approve)),
    Command.withHandler(rejectCommand, lazy("reject", () => import("./handlers/Approve.ts"), (m) => m.reject)),
    Command.withHandler(resumeCommand, lazy("resume", () => import("./handlers/Resume.ts"), (m) => m.resume)),
    Command.withHandler(retryCommand, lazy("retry", () => import("./handlers/Retry.ts"), (m) => m.retry)),
    Command.withHandler(batchesCommand, lazy("batches", () => import("./handlers/Batches.ts"), (m) => m.batches)),
    Command.withHandler(reconcileCommand, lazy("reconcile", () => import("./handlers/Reconcile.ts"), (m) => m.reconcile)),
    Command.withHandler(resolveCommand, lazy("resolve", () => import("./handlers/Resolve.ts"), (m) => m.resolve)),
    Command.withHandler(haltCommand, lazy("halt", () => import("./handlers/Halt.ts"), (m) => m.halt)),
    Command.withHandler(ledgerCommand, lazy("ledger", () => import("./handlers/Ledger.ts"), (m) => m.ledger)),
    Command.withHandler(workersCommand, lazy("workers", () => import("./handlers/Workers.ts"), (m) => m.workers)),
    Command.withHandler(consoleCommand, lazy("console", () => import("./handlers/Console.ts"), (m) => m.runConsole)),
    Command.withHandler(usersCommand, lazy("users", () => import("./handlers/Users.ts"), (m) => m.users)),
    Command.withHandler(configCommand, lazy("config", () => import("./handlers/Config.ts"), (m) => m.config))
  ])
)

/**
 * @effect/cli prints its argument errors itself, as a multi-line document; `report` says them as one
 * `payouts:` line instead. So its console drops errors while it parses, and each command's handler
 * runs with the real one.
 */
class HandlerConsole extends Context.Tag("cli/HandlerConsole")<HandlerConsole, Console.Console>() {}

const cli = Command.run(
  payouts.pipe(Command.transformHandler((handler) => Effect.flatMap(HandlerConsole, (console) => Effect.withConsole(handler, console)))),
  PROGRAM
)

// `--utc` is the program's, for every command: times read in UTC instead of the local zone.
const { utc, rest: argv } = takeUtc(process.argv.slice(2))
const fullArgv = [...process.argv.slice(0, 2), ...argv]

/**
 * What the commands and @effect/cli ask of the platform: files, paths, the terminal. Not the whole
 * NodeContext.layer, whose command executor and worker manager no command uses, and which would load
 * child_process (and with it net and dgram) and build both at every start.
 */
const PlatformLive = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

Effect.console.pipe(
  Effect.flatMap((console) =>
    Effect.flatMap(Effect.flatMap(answerHelp(payouts, PROGRAM, argv), (help) => (help ? Effect.succeed(true) : answerCompletions(payouts, argv))), (answered) =>
      answered
        ? Effect.void
        : Effect.zipRight(refuseBuiltIns(argv), cli(fullArgv)).pipe(
          Effect.withConsole({ ...console, error: () => Effect.void }),
          Effect.provideService(HandlerConsole, console)
        ))
  ),
  (program) => report(program, argv.find((arg) => HashMap.has(Command.getSubcommands(payouts), arg)), () => strayOption(payouts, argv)),
  // Outside the report above, so that its advice sees the selected profile (where a setting came
  // from); a fault of the config file itself is reported by the report below.
  Effect.provide(profileLayer(fullArgv)),
  (program) => report(program),
  // Spans are exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set (./Traces.ts); otherwise the
  // tracer is off and they are no-ops (docs/PERFORMANCE.md, the orchestrator's cost).
  withTraces(PROGRAM.version),
  Effect.provide(NoticesLive),
  Effect.provideService(UtcTimes, utc),
  Effect.provide(PlatformLive),
  withInterruptExit,
  NodeRuntime.runMain({ disableErrorReporting: true, teardown })
)
