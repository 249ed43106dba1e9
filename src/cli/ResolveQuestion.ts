/**
 * The one question before a decision over several rows (`resolve --lines`, `--all-unknown`), as
 * `run` asks before paying (Confirm.ts): on stderr, "yes" to go on, anything else or a closed terminal
 * (Ctrl-D) is no; `--yes` skips it; with no terminal to ask on and no `--yes`, the decision is refused
 * before the service is even asked. (Confirm.ts keeps its prompt private; this is the same prompt.)
 */
import { Console, Effect } from "effect"
import { createInterface } from "node:readline/promises"

/** The answer typed; "" when the terminal closes first, which is no. */
const ask = (question: string) =>
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

/** Shows what is about to be decided and asks once; true on "yes". */
export const askToDecide = (overview: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    yield* Console.error(overview)
    const answer = yield* ask('Decide for these rows? Type "yes" to go on (--yes skips this question): ')
    return /^\s*y(es)?\s*$/i.test(answer)
  })

/** Whether a person can be asked here: stdin is a terminal. */
export const canAsk = (): boolean => process.stdin.isTTY === true
