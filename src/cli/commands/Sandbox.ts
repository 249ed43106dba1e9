import { Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Either, Option, Redacted } from "effect"
import { durationOption } from "../Duration.ts"
import { UsageError } from "../Errors.ts"
import type { OptionValue } from "../Output.ts"

const DEFAULT_FUND = "XAF=10000000,XOF=10000000"

const options = Options.all({
  port: Options.integer("port").pipe(Options.withPseudoName("N"), Options.withDescription("Port to listen on (0 picks a free one)."), Options.withDefault(4010)),
  host: Options.text("host").pipe(Options.withPseudoName("HOST"), Options.withDescription("Interface to listen on."), Options.withDefault("127.0.0.1")),
  timeScale: Options.float("time-scale").pipe(
    Options.withPseudoName("X"),
    Options.withDescription("Sandbox seconds per real second (60 = one sandbox minute per second)."),
    Options.withDefault(1)
  ),
  fund: Options.text("fund").pipe(
    Options.withPseudoName("CUR=AMOUNT,..."),
    Options.withDescription("Opening balances in major units, CURRENCY=AMOUNT,..."),
    Options.withDefault(DEFAULT_FUND)
  ),
  key: Options.text("key").pipe(Options.withPseudoName("KEY"), Options.withDescription("API key the sandbox accepts (default: generated)."), Options.optional),
  secret: Options.text("secret").pipe(Options.withPseudoName("SECRET"), Options.withDescription("API secret the sandbox accepts (default: generated)."), Options.optional),
  faults: Options.text("faults").pipe(
    Options.withPseudoName("SPEC"),
    Options.withDescription("Fault injection, e.g. payout.error_after=0.05,*.latency=5ms-50ms,rate=50,seed=7."),
    Options.optional
  ),
  payoutDelay: durationOption("payout-delay").pipe(
    Options.withDescription("Time an ordinary payout takes to complete, in sandbox time (e.g. 5s)."),
    Options.optional
  ),
  failureRatio: Options.float("failure-ratio").pipe(
    Options.withPseudoName("RATIO"),
    Options.withDescription("Share of payouts to ordinary numbers that fail, 0 to 1."),
    Options.optional
  ),
  data: Options.file("data").pipe(
    Options.withDescription("Keep the sandbox's state in this SQLite file across restarts (--fund applies only when it is new)."),
    Options.optional
  ),
  settlementDelay: durationOption("settlement-delay").pipe(
    Options.withDescription("Sandbox time before a completed pay-in's funds become available (default 1d)."),
    Options.optional
  ),
  webhookSecret: Options.redacted("webhook-secret").pipe(
    Options.withDescription("Sign webhooks with HMAC-SHA256 (X-Sandbox-Signature). The real service specifies no signature."),
    Options.optional
  )
})

type Parsed = OptionValue<typeof options>

const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`)

const usage = (reason: string) => new UsageError({ reason })

// Loaded on use: the look-up commands should not pay for loading the server.
const loadSandbox = Effect.promise(() => import("../../sandbox/Sandbox.ts"))

const check = (args: Parsed) =>
  Effect.gen(function* () {
    const { parseFaults, parseFund } = yield* loadSandbox
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
      return yield* new UsageError({ reason: "--port must be between 0 and 65535" })
    }
    if (!(args.timeScale > 0)) return yield* new UsageError({ reason: "--time-scale must be greater than 0" })
    if (Option.exists(args.failureRatio, (ratio) => !(ratio >= 0 && ratio <= 1))) {
      return yield* new UsageError({ reason: "--failure-ratio must be between 0 and 1" })
    }
    const fund = yield* Either.mapLeft(parseFund(args.fund), usage)
    if (Option.isSome(args.faults)) yield* Either.mapLeft(parseFaults(args.faults.value), usage)
    return fund
  })

export const sandboxCommand = Command.make("sandbox", { args: options }, ({ args }) =>
  Effect.gen(function* () {
    const fund = yield* check(args)
    const { startSandbox } = yield* loadSandbox
    const sandbox = yield* startSandbox({
      port: args.port,
      host: args.host,
      timeScale: args.timeScale,
      fund,
      key: Option.getOrUndefined(args.key),
      secret: Option.getOrUndefined(args.secret),
      faults: Option.getOrUndefined(args.faults),
      payoutDelaySeconds: Option.getOrUndefined(Option.map(args.payoutDelay, Duration.toSeconds)),
      failureRatio: Option.getOrUndefined(args.failureRatio),
      dataFile: Option.getOrUndefined(args.data),
      settlementDelaySeconds: Option.getOrUndefined(Option.map(args.settlementDelay, Duration.toSeconds)),
      webhookSecret: Option.getOrUndefined(Option.map(args.webhookSecret, Redacted.value))
    })
    yield* Console.log(
      [
        `Sandbox payment API listening on ${sandbox.baseUrl}`,
        `  API key:    ${sandbox.key}`,
        `  API secret: ${sandbox.secret}`,
        "  (the sandbox's own test credentials, printed on purpose; they are worth nothing elsewhere)",
        `  Test numbers and cards: ${sandbox.origin}/__sandbox/test-data`,
        `  Time scale: ${args.timeScale}x; funded with ${args.fund}${Option.isSome(args.data) ? ` (state kept in ${args.data.value})` : ""}`,
        "Point payouts at it:",
        `  export PAYOUTS_BASE_URL=${shellWord(sandbox.baseUrl)} PAYOUTS_API_KEY=${shellWord(sandbox.key)} PAYOUTS_API_SECRET=${shellWord(sandbox.secret)}`,
        "Stop with Ctrl-C."
      ].join("\n")
    )
    return yield* Effect.never
  }).pipe(Effect.scoped)
).pipe(Command.withDescription("Run the local sandbox of the payment API until stopped (Ctrl-C)."))
