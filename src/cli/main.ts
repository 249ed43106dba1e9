import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCommand, validateCommand } from "./commands/Run.js"
import { sandboxCommand } from "./commands/Sandbox.js"
import { statusCommand } from "./commands/Status.js"
import { summaryCommand } from "./commands/Summary.js"
import { transactionsCommand } from "./commands/Transactions.js"
import { walletCommand } from "./commands/Wallet.js"
import { approveCommand, rejectCommand } from "./commands/Approve.js"
import { batchesCommand } from "./commands/Batches.js"
import { haltCommand } from "./commands/Halt.js"
import { ledgerCommand } from "./commands/Ledger.js"
import { reconcileCommand } from "./commands/Reconcile.js"
import { resolveCommand } from "./commands/Resolve.js"
import { resumeCommand } from "./commands/Resume.js"
import { watchCommand } from "./commands/Watch.js"
import { report, teardown } from "./Failure.js"

const payouts = Command.make("payouts").pipe(
  Command.withDescription("Pay many people through the mobile-money payout API, exactly once."),
  Command.withSubcommands([runCommand, validateCommand, sandboxCommand, walletCommand, transactionsCommand, summaryCommand, statusCommand, watchCommand, approveCommand, rejectCommand, resumeCommand, batchesCommand, reconcileCommand, resolveCommand, haltCommand, ledgerCommand])
)

const cli = Command.run(payouts, { name: "payouts", version: "0.1.0" })

cli(process.argv).pipe(
  report,
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true, teardown })
)
