/** `payouts sandbox`: the sandbox server, started in this process (the command tree loads this on use). */
import type { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Console, Duration, Effect, Either, Option, Redacted, Stream } from "effect"
import { openApiJson } from "../../api/OpenApi.ts"
import { writeFileAtomic } from "../../output/AtomicFile.ts"
import type { sandboxCommand } from "../commands/Sandbox.ts"
import { UsageError } from "../Errors.ts"
import type { Parsed } from "../Lazy.ts"
import { parseFund, type SandboxStartError, startSandbox } from "../../sandbox/Sandbox.ts"
import { parseFaults } from "../../sandbox/FaultGrammar.ts"

type Args = Parsed<typeof sandboxCommand>["args"]

const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`)

const usage = (reason: string) => new UsageError({ reason })

const check = (args: Args) =>
  Effect.gen(function* () {
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

/** The description's server: where `payouts sandbox` with the same --host and --port listens. */
const localServer = (args: Args) => ({
  url: "http://{host}:{port}/v1",
  description: "The local sandbox (payouts sandbox); point the variables at another sandbox or use the service's own base URL.",
  variables: {
    host: { default: args.host.includes(":") ? `[${args.host}]` : args.host, description: "The sandbox's --host." },
    port: { default: String(args.port), description: "The sandbox's --port." }
  }
})

const writeOpenApi = (args: Args, file: string) =>
  Effect.gen(function* () {
    yield* check(args)
    yield* writeFileAtomic(file, Stream.make(openApiJson(localServer(args))))
    yield* Console.log(`OpenAPI description of the v1 interface written to ${file}`)
  })

export const sandbox = ({ args }: Parsed<typeof sandboxCommand>): Effect.Effect<void, UsageError | PlatformError | SandboxStartError, FileSystem.FileSystem> =>
  Option.isSome(args.openapi) ? writeOpenApi(args, args.openapi.value) : serve(args)

const serve = (args: Args) =>
  Effect.gen(function* () {
    const fund = yield* check(args)
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
