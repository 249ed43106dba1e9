import { CliConfig, Options } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import { durationOption } from "../../src/cli/Duration.ts"
import { describe as describeFailure } from "../../src/cli/Failure.ts"
import { connectionOptions, resolveConnection, stateOption } from "../../src/cli/Settings.ts"

const parse = <A>(options: Options.Options<A>, argv: ReadonlyArray<string>, env: Record<string, string>) =>
  Options.processCommandLine(options, argv, CliConfig.defaultConfig).pipe(
    Effect.map(([, , value]) => value),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    Effect.provide(NodeContext.layer)
  )

const connect = (argv: ReadonlyArray<string>, env: Record<string, string>) =>
  parse(connectionOptions, argv, env).pipe(Effect.flatMap(resolveConnection), Effect.either)

const env = { PAYOUTS_BASE_URL: "http://127.0.0.1:4010/v1", PAYOUTS_API_KEY: "key-env", PAYOUTS_API_SECRET: "secret-env" }

describe("Settings", () => {
  it.effect("reads the environment, and a flag wins over it", () =>
    Effect.gen(function* () {
      const fromEnv = yield* connect([], env)
      expect(Either.map(fromEnv, (c) => [c.baseUrl, Redacted.value(c.apiKey), Redacted.value(c.apiSecret)])).toEqual(
        Either.right(["http://127.0.0.1:4010/v1", "key-env", "secret-env"])
      )
      const fromFlags = yield* connect(["--base-url", "https://api.example.com/v1/", "--api-secret", "flag-secret"], env)
      expect(Either.map(fromFlags, (c) => [c.baseUrl, Redacted.value(c.apiSecret)])).toEqual(
        Either.right(["https://api.example.com/v1", "flag-secret"])
      )
    }))

  it.effect("a missing or empty setting names the variable and the flag, exit code 2", () =>
    Effect.gen(function* () {
      for (const [name, flag] of [["PAYOUTS_BASE_URL", "base-url"], ["PAYOUTS_API_KEY", "api-key"], ["PAYOUTS_API_SECRET", "api-secret"]]) {
        const missing = yield* connect([], { ...env, [name]: "" })
        expect(Either.isLeft(missing)).toBe(true)
        if (Either.isLeft(missing)) {
          expect(describeFailure(missing.left)).toEqual({ message: `Missing setting: set ${name} or pass --${flag}`, code: 2 })
        }
      }
    }))

  it.effect("a base URL must be http(s) and end in /v1", () =>
    Effect.gen(function* () {
      for (const url of ["http://127.0.0.1:4010", "ftp://x/v1", "not a url", "http://u:p@x/v1", "http://x/v1?a=1"]) {
        const result = yield* connect([], { ...env, PAYOUTS_BASE_URL: url })
        expect(Either.isLeft(result), url).toBe(true)
        if (Either.isLeft(result)) {
          const { message, code } = describeFailure(result.left)
          expect(message).toMatch(/^Invalid setting PAYOUTS_BASE_URL \/ --base-url: /)
          expect(message).not.toContain("u:p")
          expect(code).toBe(2)
        }
      }
    }))

  it.effect("PAYOUTS_STATE is optional (the per-user store is the default); durations parse as options", () =>
    Effect.gen(function* () {
      expect(yield* parse(stateOption, [], {})).toEqual(Option.none())
      expect(yield* parse(stateOption, [], { PAYOUTS_STATE: "/tmp/s.db" })).toEqual(Option.some("/tmp/s.db"))
      const poll = yield* parse(durationOption("poll-interval").pipe(Options.optional), ["--poll-interval", "200ms"], {})
      expect(Option.map(poll, Duration.toMillis)).toEqual(Option.some(200))
      const bad = yield* Effect.either(parse(durationOption("poll-interval"), ["--poll-interval", "5"], {}))
      expect(Either.isLeft(bad)).toBe(true)
    }))
})
