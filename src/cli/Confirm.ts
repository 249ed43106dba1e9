/**
 * The look before paying real money (issue 12, item 12): on a terminal, against a service that is not
 * our sandbox, `payouts run` shows the account (the service's host and a fingerprint of the key, never
 * the key) and what it is about to pay, once, and goes on only on "yes". `--yes` skips the question;
 * nothing is asked when stdin is not a terminal (scripts, cron, `watch`), nor for the embedded sandbox
 * or our sandbox on loopback (issue 31 item 6: a rehearsal moves no money). A profile marked `live`
 * makes the question mandatory, on loopback too: without a terminal to ask on, and without `--yes`,
 * the run is refused before the first payout (exit 2), never paid unasked.
 */
import { Console, Effect, Redacted } from "effect"
import { createHash } from "node:crypto"
import { createInterface } from "node:readline/promises"
import { isLoopbackUrl } from "../api/ServiceClock.ts"
import { userFormat } from "../output/Format.ts"
import type { Overview } from "../run/RunRequest.ts"
import { confirmationOverview } from "./NoticeText.ts"
import type { Connection } from "./Settings.ts"

/** A short, stable, one-way name for a key: enough to tell two keys apart, nothing to reuse. */
export const keyFingerprint = (key: Redacted.Redacted): string =>
  `sha256:${createHash("sha256").update(Redacted.value(key)).digest("hex").slice(0, 12)}`

/** The answer typed on stderr's terminal; "" when the terminal closes first (Ctrl-D), which is no. */
export const ask = (question: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => createInterface({ input: process.stdin, output: process.stderr })),
    (rl) =>
      Effect.tryPromise(
        () =>
          new Promise<string>((resolve, reject) => {
            rl.once("close", () => resolve(""))
            rl.question(question).then(resolve, reject)
          })
      ).pipe(Effect.orElseSucceed(() => "")),
    (rl) => Effect.sync(() => rl.close())
  )

export interface ConfirmSetup {
  readonly connection: Connection
  readonly file: string
  readonly yes: boolean
  readonly sandbox: boolean
  readonly dryRun: boolean
}

const refusedUnasked = (profile: string) => () =>
  Console.error(
    `payouts: profile "${profile}" is marked live: paying needs a "yes" typed on a terminal, and there is none here; pass --yes to pay without asking`
  ).pipe(Effect.as(false))

/** Our sandbox on loopback (asked of it, Confirm's LocalSandbox.ts): never a tunnel to a real service. */
const localSandbox = (connection: Connection) =>
  isLoopbackUrl(connection.baseUrl)
    ? Effect.flatMap(Effect.promise(() => import("./LocalSandbox.ts")), (m) => m.isOurSandbox(connection))
    : Effect.succeed(false)

export type Ask = (overview: Overview) => Effect.Effect<boolean>

const asker = (setup: ConfirmSetup, live: boolean): Ask =>
  (overview) =>
    Effect.gen(function* () {
      const host = URL.canParse(setup.connection.baseUrl) ? new URL(setup.connection.baseUrl).host : setup.connection.baseUrl
      yield* Console.error(
        [
          "About to pay real money:",
          `  service ${host}, key ${keyFingerprint(setup.connection.apiKey)}`,
          ...(setup.connection.profile === undefined ? [] : [`  profile ${setup.connection.profile}${live ? " (live)" : ""}`]),
          `  file    ${setup.file}`,
          ...confirmationOverview(overview, yield* userFormat).split("\n").map((line) => `  ${line}`.trimEnd())
        ].join("\n")
      )
      const answer = yield* ask('Pay these now? Type "yes" to go on (--yes skips this question): ')
      return /^\s*y(es)?\s*$/i.test(answer)
    })

/** The question to ask before the first payout, or undefined when none is to be asked. */
export const confirmBeforePaying = (setup: ConfirmSetup, terminal: boolean = process.stdin.isTTY === true): Effect.Effect<Ask | undefined> =>
  Effect.gen(function* () {
    if (setup.yes || setup.sandbox || setup.dryRun) return undefined
    const live = setup.connection.live === true
    if (!terminal) return live ? refusedUnasked(setup.connection.profile ?? "") : undefined
    if (!live && (yield* localSandbox(setup.connection))) {
      yield* Console.error(`Sandbox at ${new URL(setup.connection.baseUrl).host}: a rehearsal, no real money moves; paying without asking.`)
      return undefined
    }
    return asker(setup, live)
  })
