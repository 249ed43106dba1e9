import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCommand, validateCommand } from "./commands/Run.ts"
import { sandboxCommand } from "./commands/Sandbox.ts"
import { statusCommand } from "./commands/Status.ts"
import { summaryCommand } from "./commands/Summary.ts"
import { transactionsCommand } from "./commands/Transactions.ts"
import { walletCommand } from "./commands/Wallet.ts"
import { approveCommand, rejectCommand } from "./commands/Approve.ts"
import { batchesCommand } from "./commands/Batches.ts"
import { haltCommand } from "./commands/Halt.ts"
import { ledgerCommand } from "./commands/Ledger.ts"
import { workersCommand } from "./commands/Workers.ts"
import { reconcileCommand } from "./commands/Reconcile.ts"
import { resolveCommand } from "./commands/Resolve.ts"
import { resumeCommand } from "./commands/Resume.ts"
import { watchCommand } from "./commands/Watch.ts"
import { report, teardown } from "./Failure.ts"
import { NoticesLive } from "./Notices.ts"

const payouts = Command.make("payouts").pipe(
  Command.withDescription("Pay many people through the mobile-money payout API, exactly once."),
  Command.withSubcommands([runCommand, validateCommand, sandboxCommand, walletCommand, transactionsCommand, summaryCommand, statusCommand, watchCommand, approveCommand, rejectCommand, resumeCommand, batchesCommand, reconcileCommand, resolveCommand, haltCommand, ledgerCommand, workersCommand])
)

const cli = Command.run(payouts, { name: "payouts", version: "0.1.0" })

cli(process.argv).pipe(
  report,
  Effect.provide(NoticesLive),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: true, teardown })
)
