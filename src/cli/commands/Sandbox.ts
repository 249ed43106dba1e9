/** `payouts sandbox`: the command; its handler is in ../handlers/Sandbox.ts (loaded on use). */
import { Command, Options } from "@effect/cli"
import { durationOption } from "../Duration.ts"

const DEFAULT_FUND = "XAF=10000000,XOF=10000000"

const options = Options.all({
  port: Options.integer("port").pipe(Options.withPseudoName("N"), Options.withDescription("Port to listen on (0 picks a free one). Default: 4010."), Options.withDefault(4010)),
  host: Options.text("host").pipe(Options.withPseudoName("HOST"), Options.withDescription("Interface to listen on. Default: 127.0.0.1."), Options.withDefault("127.0.0.1")),
  timeScale: Options.float("time-scale").pipe(
    Options.withPseudoName("NUMBER"),
    Options.withDescription("Sandbox seconds per real second (60 = one sandbox minute per second). Default: 1."),
    Options.withDefault(1)
  ),
  fund: Options.text("fund").pipe(
    Options.withPseudoName("CUR=AMOUNT,..."),
    Options.withDescription(`Opening balances in major units, CURRENCY=AMOUNT,... Default: ${DEFAULT_FUND}.`),
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
    Options.withDescription("Sandbox time before a completed pay-in's funds become available (default 24h)."),
    Options.optional
  ),
  webhookSecret: Options.redacted("webhook-secret").pipe(
    Options.withDescription("Sign webhooks with HMAC-SHA256 (X-Sandbox-Signature). The real service specifies no signature."),
    Options.optional
  ),
  openapi: Options.file("openapi").pipe(
    Options.withDescription("Write the OpenAPI 3.1 description of the v1 interface to FILE (its server: --host and --port) and exit; no server starts."),
    Options.optional
  )
})

export const sandboxCommand = Command.make("sandbox", { args: options }).pipe(
  Command.withDescription("Run the local sandbox of the payment API until stopped (Ctrl-C).")
)
