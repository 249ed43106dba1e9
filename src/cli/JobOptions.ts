/**
 * The options of the job-folder commands (watch, approve, reject, resume, batches, halt, ledger,
 * reconcile, resolve, workers) without their handlers' dependencies: the command tree imports these,
 * and src/cli/Jobs.ts (which needs the HTTP client and the store) is loaded with the handlers.
 */
import { Args, Options } from "@effect/cli"
import { Config } from "effect"
import { DEFAULT_JOBS_DIR } from "../jobs/JobFolder.ts"

export const jobsOption = Options.directory("jobs").pipe(
  Options.withDescription(`The job folder. Default: ${DEFAULT_JOBS_DIR}.`),
  Options.withDefault(DEFAULT_JOBS_DIR)
)

/** `--state`, else `PAYOUTS_STATE`, else the jobs folder's pinned store, else the per-user store. */
export const jobsStateOption = Options.text("state").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("State store file (SQLite); default: the jobs folder's store if it is watched, else ~/.local/state/payouts/payouts.db. Environment: PAYOUTS_STATE."),
  Options.withFallbackConfig(Config.string("PAYOUTS_STATE")),
  Options.optional
)

export const batchArg = Args.text({ name: "BATCH" }).pipe(Args.withDescription("The batch id (or its first characters, at least 4)."))

/** Who approves or rejects a batch: always named, never taken from the OS user (it is a decision). */
export const deciderOption = Options.text("by").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription("Who decides (required; recorded in the approval file and the state store).")
)
