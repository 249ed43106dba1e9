/**
 * `payouts run FILE` and `payouts validate FILE`: the batch commands and their options (shared with
 * `payouts watch`). Their handlers are in ../handlers/Run.ts, loaded on use.
 */
import { Args, Command, Options } from "@effect/cli"
import { Config, Duration, Option } from "effect"
import { formatFeeEstimate } from "../../domain/FeeEstimate.ts"
import { DEFAULT_RUN_SETTINGS } from "../../run/RunContext.ts"
import { ABOVE_ZERO, AT_LEAST_ONE, durationFallback, fromEnvironment, positiveInteger, positiveNumber } from "../config/Keys.ts"
import { durationOption } from "../Duration.ts"
import { withDefault } from "../help/Defaults.ts"
import { guardOptions, stopRuleOptions } from "../SafeguardOptions.ts"
import { connectionOptions, redirectOptions, stateOption } from "../Settings.ts"

/** The flags' defaults are the run's defaults (run/RunContext.ts), shared with the tests and the bench. */
const DEFAULTS = DEFAULT_RUN_SETTINGS

/** How often a run rewrites its ledger and reports progress, and how long it retries its outputs. */
export const RUN_PACING = { ledgerEvery: Duration.seconds(15), progressEvery: Duration.seconds(5), outputRetry: Duration.minutes(2) }

/** The time scale `run --sandbox` uses unless told otherwise (what `retry` hands to `run`). */
export const DEFAULT_TIME_SCALE = 600

/** What `validate` uses: the file's checks and the balance preflight (also taken by `run` and `watch`). */
const checkFields = {
  connection: connectionOptions,
  state: stateOption,
  sandbox: Options.boolean("sandbox").pipe(
    Options.withDescription("Start the embedded sandbox in this process, funded, and run against it (a rehearsal).")
  ),
  timeScale: withDefault(Options.float("time-scale").pipe(Options.withPseudoName("NUMBER")), DEFAULT_TIME_SCALE, "With --sandbox: sandbox seconds per real second."),
  out: Options.directory("out").pipe(Options.withAlias("o"), Options.withDescription("Write ledger, summary and errors here instead of beside the file."), Options.optional),
  json: Options.boolean("json").pipe(Options.withAlias("j"), Options.withDescription("Print the summary as JSON on stdout.")),
  rate: Options.float("rate").pipe(
    Options.filterMap((n) => (Number.isFinite(n) && n > 0 ? Option.some(n) : Option.none()), `--rate ${ABOVE_ZERO}`),
    Options.withPseudoName("N"),
    Options.withDescription("Requests per second to the service, all calls together (default: adaptive)."),
    fromEnvironment("rate", positiveNumber),
    Options.optional
  ),
  requestTimeout: withDefault(durationOption("request-timeout"), Duration.millis(DEFAULTS.requestTimeoutMs), "Timeout of each request to the service.").pipe(fromEnvironment("request_timeout", durationFallback)),
  skipInvalid: Options.boolean("skip-invalid").pipe(Options.withDescription("Pay the valid rows of a file with invalid rows (they are rejected in the ledger).")),
  allowRepeats: Options.boolean("allow-repeats").pipe(Options.withDescription("Accept repeated (phone, amount, operator) rows without distinct ids.")),
  allowSharedPhone: Options.boolean("allow-shared-phone").pipe(
    Options.withDescription("Accept one phone number paid to several recipient names in a file (recorded in the summary).")
  ),
  repeatWindow: withDefault(durationOption("repeat-window"), Duration.hours(24), "How far back repeats in other batches are refused.").pipe(fromEnvironment("repeat_window", durationFallback)),
  onInsufficient: withDefault(Options.choice("on-insufficient", ["abort", "partial"]), DEFAULTS.onInsufficient, "abort: refuse the batch; partial: pay rows in file order while they fit.").pipe(fromEnvironment("on_insufficient", Config.literal("abort", "partial"))),
  feeEstimate: withDefault(Options.text("fee-estimate").pipe(Options.withPseudoName("P%[,min=M]")), formatFeeEstimate(DEFAULTS.feePercent), "Fee estimate for the balance preflight, a rule P%[,min=M]: P percent of each amount rounded up, at least M minor units per payout.").pipe(fromEnvironment("fee_estimate", Config.string)),
  guards: guardOptions
}

export const checkOptions = Options.all(checkFields)

/** What only paying needs: sending, following, reconciling, writing the ledger as it goes. */
const payFields = {
  redirects: redirectOptions,
  concurrency: withDefault(
    Options.integer("concurrency").pipe(Options.withAlias("c"), Options.filterMap((n) => (n >= 1 ? Option.some(n) : Option.none()), `--concurrency ${AT_LEAST_ONE}`)),
    DEFAULTS.concurrency,
    "Payout requests in flight at once."
  ).pipe(fromEnvironment("concurrency", positiveInteger)),
  pollInterval: withDefault(durationOption("poll-interval"), Duration.millis(DEFAULTS.pollIntervalMs), "First status poll after submission; doubles each time.").pipe(fromEnvironment("poll_interval", durationFallback)),
  pollMax: withDefault(durationOption("poll-max"), Duration.millis(DEFAULTS.pollMaxMs), "Longest interval between two status polls.").pipe(fromEnvironment("poll_max", durationFallback)),
  trackTimeout: withDefault(durationOption("track-timeout"), Duration.millis(DEFAULTS.trackTimeoutMs), "Stop following a payout after this long (it stays pending; exit 3).").pipe(fromEnvironment("track_timeout", durationFallback)),
  reconcileGrace: withDefault(durationOption("reconcile-grace"), Duration.millis(DEFAULTS.reconcileGraceMs), "Least wait after an ambiguous request ended before a provably unlisted payout may be resent (raised to request timeout + lease time + twice the listing lag).").pipe(fromEnvironment("reconcile_grace", durationFallback)),
  reconcileDeadline: withDefault(durationOption("reconcile-deadline"), Duration.millis(DEFAULTS.reconcileDeadlineMs), "An ambiguous row still unproven after this long becomes an alarm for a person.").pipe(fromEnvironment("reconcile_deadline", durationFallback)),
  resendUnknown: withDefault(Options.choice("resend-unknown", ["after", "never"]), DEFAULTS.resendUnknown, "after: resend once when the listing proves the payout absent; never: leave every unproven row to a person.").pipe(fromEnvironment("resend_unknown", Config.literal("after", "never"))),
  leaseTtl: withDefault(durationOption("lease-ttl"), Duration.millis(DEFAULTS.leaseTtlMs), "How long the batch lease lasts without renewal (part of the reconcile grace floor).").pipe(fromEnvironment("lease_ttl", durationFallback)),
  notify: Options.text("notify").pipe(
    Options.withPseudoName("URL"),
    Options.withDescription("POST a signed JSON notification here when a batch is done, rejected, paused, under alarm or awaiting approval (signing secret: PAYOUTS_NOTIFY_SECRET)."),
    fromEnvironment("notify_url", Config.string),
    Options.optional
  ),
  ledgerEvery: withDefault(durationOption("ledger-every"), RUN_PACING.ledgerEvery, "How often the ledger is rewritten while the run goes on.").pipe(fromEnvironment("ledger_every", durationFallback)),
  progressEvery: withDefault(durationOption("progress-every"), RUN_PACING.progressEvery, "How often progress is reported.").pipe(fromEnvironment("progress_every", durationFallback)),
  outputRetry: withDefault(durationOption("output-retry"), RUN_PACING.outputRetry, "How long ledger, summary and report that cannot be written are retried at the end before exit 4 (the store keeps everything: payouts ledger BATCH).").pipe(fromEnvironment("output_retry", durationFallback)),
  stopRules: stopRuleOptions
}

/** What `run` takes: every batch option, plus a webhook receiver and the answer to "pay?". */
export const runFields = {
  ...checkFields,
  ...payFields,
  listen: Options.text("listen").pipe(Options.withPseudoName("HOST:PORT"), Options.withDescription("HOST:PORT of a webhook receiver (callback_url http://HOST:PORT/webhooks)."), fromEnvironment("listen", Config.string), Options.optional),
  yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Do not ask before paying (asked only on a terminal, against a real service)."))
}

export const batchOptions = Options.all(runFields)

// A job folder's outputs travel with each file, several batches run at once (no single webhook
// receiver), and nothing is asked of a person at the terminal: no --out, --json, --listen or --yes.
const { json: _json, out: _out, ...folderCheckFields } = checkFields

/** What `payouts watch` takes for the batches it runs. */
export const watchBatchOptions = Options.all({ ...folderCheckFields, ...payFields })

const fileArg = Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("The payout CSV."))

export const runCommand = Command.make("run", { file: fileArg, args: batchOptions }).pipe(
  Command.withDescription("Pay every row of a CSV exactly once, follow each payout to its final status, write the ledger.")
)

export const validateCommand = Command.make("validate", { file: fileArg, args: checkOptions }).pipe(
  Command.withDescription("Dry run: parse, validate and check the balance; pays nothing. Exit 0 when the file would be paid whole, 2 when refused.")
)
