/**
 * Turns whatever ended a command into one line on stderr and an exit code. Exit codes of the
 * operations commands: 0 done, 1 the service refused or answered oddly, 2 configuration,
 * credentials or usage, 3 the service could not be reached or is busy (try again), 4 an internal
 * failure (the state store, a file we could not write, a bug), named. Bad usage (an unknown option,
 * a missing argument) is 2, like a bad setting.
 */
import { ValidationError as CliValidationError } from "@effect/cli"
import { SystemError } from "@effect/platform/Error"
import type { Teardown } from "@effect/platform/Runtime"
import { Cause, Console, Context, Data, Effect, Exit, Option, Predicate, Ref } from "effect"
import type * as Api from "../api/Errors.ts"
import { maskUrlPasswords } from "../domain/Secrets.ts"
import { describeFileError } from "../output/AtomicFile.ts"
import { CHECK_CREDENTIALS, CredentialsRefused, InvalidSetting, MissingSetting, UsageError } from "./Errors.ts"
import { shown } from "./Logging.ts"
import { baseUrlAdvice, type ConnectionSources, connectionSources, credentialsAdvice, environment } from "./config/Sources.ts"
import { usageMessage, variableProblem } from "./help/Doc.ts"

/**
 * An error of the API client, known by its tag: importing its classes for `instanceof` would build
 * the API's error schemas (about a hundred schema classes) at every start, `--help` included.
 */
const isApi = <T extends Api.ClientError["_tag"]>(error: unknown, tag: T): error is Extract<Api.ClientError, { readonly _tag: T }> =>
  Predicate.isTagged(error, tag) && error instanceof Error

export const ExitCode = { ok: 0, refused: 1, configuration: 2, unavailable: 3, internal: 4 } as const

export interface Described {
  readonly message: string
  readonly code: number
}

const fields = (errors: Api.FieldErrors): string =>
  Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join("; ")}`)
    .join(", ")

/**
 * `sources`: where the connection's settings came from (config/Sources.ts), so that the advice after a
 * refused key or an unreachable service names the flag, variable or profile to fix.
 */
export const describe = (error: unknown, sources?: ConnectionSources): Described => {
  const described = describeRaw(error, sources)
  // A driver's error may quote the store's URL: its password is never printed.
  return { ...described, message: maskUrlPasswords(described.message) }
}

const describeRaw = (error: unknown, sources?: ConnectionSources): Described => {
  if (error instanceof MissingSetting || error instanceof InvalidSetting || error instanceof UsageError || error instanceof CredentialsRefused) {
    return { message: error.message, code: ExitCode.configuration }
  }
  if (isApi(error, "AuthError")) {
    return {
      message: `the service refused the credentials (401: ${error.message}). ${sources === undefined ? CHECK_CREDENTIALS : credentialsAdvice(sources)}`,
      code: ExitCode.configuration
    }
  }
  if (isApi(error, "ValidationError") || isApi(error, "InsufficientBalance")) {
    const detail = fields(error.errors)
    return { message: `the service refused the request: ${detail === "" ? error.message : detail}`, code: ExitCode.refused }
  }
  if (isApi(error, "NotFound")) {
    return { message: `not found: no transaction has the reference ${error.reference}`, code: ExitCode.refused }
  }
  if (isApi(error, "RateLimited")) {
    const after = error.retryAfterMs === undefined ? "" : ` (retry after ${Math.ceil(error.retryAfterMs / 1000)}s)`
    return { message: `the service is rate limiting this account${after}: try again later`, code: ExitCode.unavailable }
  }
  if (isApi(error, "Unavailable") && error.status !== undefined) {
    return { message: `the service is unavailable: ${error.reason}; try again later`, code: ExitCode.unavailable }
  }
  if (isApi(error, "Unavailable") || isApi(error, "NotSent")) {
    return {
      message: `cannot reach the service: ${error.reason} (${sources === undefined ? "check PAYOUTS_BASE_URL" : baseUrlAdvice(sources)}, or try again later)`,
      code: ExitCode.unavailable
    }
  }
  if (isApi(error, "OutcomeUnknown")) {
    return { message: `no answer from the service, the outcome is unknown: ${error.reason}`, code: ExitCode.unavailable }
  }
  if (isApi(error, "UnexpectedResponse")) {
    return { message: `the service answered unexpectedly (HTTP ${error.status}): ${error.excerpt}`, code: ExitCode.refused }
  }
  if (isApi(error, "PayinRefused")) {
    return { message: `pay-in refused: ${error.message}`, code: ExitCode.refused }
  }
  // The state store cannot be used (locked past the wait, disk full, not a database): exit 4, the
  // contract's "internal failure": nothing sent is lost from the store; run again once it is fixed.
  if (Predicate.isTagged(error, "StoreError") && error instanceof Error) {
    return { message: /state store/.test(error.message) ? error.message : `state store: ${error.message}`, code: ExitCode.internal }
  }
  // A batch file replaced or written to while it was read (FileBytes.ts): nothing kept, nothing paid.
  if (Predicate.isTagged(error, "FileChanged") && error instanceof Error) return { message: error.message, code: ExitCode.configuration }
  // A file we could not write (or read): the machine's problem, not the service's: exit 4, named.
  if (error instanceof SystemError) return { message: describeFileError(error), code: ExitCode.internal }
  // By tag: the sandbox module is loaded only by the sandbox command.
  if (Predicate.isTagged(error, "SandboxStartError") && error instanceof Error) {
    return { message: `cannot start the sandbox: ${error.message}`, code: ExitCode.configuration }
  }
  if (error instanceof Error) return { message: error.message, code: ExitCode.refused }
  return { message: String(error), code: ExitCode.refused }
}

/** Failures whose advice names the connection's settings: a refused key, a service out of reach. */
const needsSources = (error: unknown) => isApi(error, "AuthError") || isApi(error, "NotSent") || (isApi(error, "Unavailable") && error.status === undefined)

/**
 * The failure a finished program carries to the teardown: already reported, only the code is left.
 * A command that has printed its own outcome (e.g. `run`'s summary) fails with it to set the code.
 */
export class Exiting extends Data.TaggedError("Exiting")<{ readonly code: number }> {}

/**
 * Reports a failure once, as one `payouts:` line. An argument error (unknown option, missing
 * argument) is a usage error, exit 2, pointing at the help of `command` when it is known, and naming
 * the option the command does not take that `strayOption` finds (asked only then), if any.
 */
export const report = <A, E, R>(program: Effect.Effect<A, E, R>, command?: string, strayOption?: () => string | undefined): Effect.Effect<A, Exiting, R> =>
  Effect.catchAllCause(program, (cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
    return Option.match(Cause.failureOption(cause), {
      onSome: (error) => {
        if (error instanceof Exiting) return Effect.fail(error)
        if (CliValidationError.isValidationError(error)) {
          // A variable that does not parse is no mistake on the command line: named with its value, no help.
          const variable = variableProblem(error.error)
          if (variable !== undefined) {
            return environment(variable.variable).pipe(
              Effect.map(Option.match({
                // Unset: the value came from the profile under it (which File.ts checks as it loads, so rarely).
                onNone: () => `${variable.variable} (from the profile)`,
                onSome: (value) => `${variable.variable}=${value}`
              })),
              Effect.flatMap((named) => Console.error(`payouts: ${named}: ${variable.why}`)),
              Effect.zipRight(Effect.fail(new Exiting({ code: ExitCode.configuration })))
            )
          }
          const help = command === undefined ? "payouts --help" : `payouts ${command} --help`
          const stray = strayOption?.()
          const what = stray === undefined ? usageMessage(error.error) : `unknown option ${stray}`
          return Effect.zipRight(Console.error(`payouts: ${what} (see ${help})`), Effect.fail(new Exiting({ code: ExitCode.configuration })))
        }
        return Effect.flatMap(needsSources(error) ? Effect.asSome(connectionSources()) : Effect.succeedNone, (sources) => {
          const { code, message } = describe(error, Option.getOrUndefined(sources))
          return Effect.zipRight(Console.error(`payouts: ${shown(message)}`), Effect.fail(new Exiting({ code })))
        })
      },
      onNone: () => {
        // A state store that went away mid-run can end a part of the run as a defect: said plainly.
        const store = Cause.dieOption(cause).pipe(Option.filter((d) => Predicate.isTagged(d, "StoreError") && d instanceof Error))
        if (Option.isSome(store)) {
          const { code, message } = describe(store.value)
          return Effect.zipRight(Console.error(`payouts: ${message}; every payout sent is recorded or will be found by its token: run again once the state store is back`), Effect.fail(new Exiting({ code })))
        }
        return Effect.zipRight(
          Console.error(`payouts: internal error\n${Cause.pretty(cause)}`),
          Effect.fail(new Exiting({ code: ExitCode.internal }))
        )
      }
    })
  })

/**
 * The exit code a signal ends the program with: a batch run says "incomplete, run again" (3).
 * `withInterruptExit` gives the program its own Ref.
 */
export class InterruptExit extends Context.Reference<InterruptExit>()("cli/InterruptExit", {
  defaultValue: (): Ref.Ref<number> => Ref.unsafeMake<number>(ExitCode.ok)
}) {}

/** The exit code to use if a signal interrupts the program from now on. */
export const exitCodeOnInterrupt = (code: number) => Effect.flatMap(InterruptExit, (ref) => Ref.set(ref, code))

/** The program ended by a signal fails with the exit code its command set (`exitCodeOnInterrupt`). */
export const withInterruptExit = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E | Exiting, R> =>
  Effect.flatMap(Ref.make<number>(ExitCode.ok), (ref) =>
    Effect.uninterruptibleMask((restore) =>
      restore(Effect.provideService(program, InterruptExit, ref)).pipe(
        Effect.catchAllCause((cause): Effect.Effect<never, E | Exiting> =>
          Cause.isInterruptedOnly(cause) ? Effect.flatMap(Ref.get(ref), (code) => Effect.fail(new Exiting({ code }))) : Effect.failCause(cause)
        )
      )
    ))

export const teardown: Teardown = (exit, onExit) =>
  onExit(
    Exit.match(exit, {
      onSuccess: () => ExitCode.ok,
      onFailure: (cause) =>
        Cause.isInterruptedOnly(cause)
          ? ExitCode.ok
          : Option.match(Cause.failureOption(cause), {
              onSome: (error) => (error instanceof Exiting ? error.code : ExitCode.refused),
              onNone: () => ExitCode.internal
            })
    })
  )
