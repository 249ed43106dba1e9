/**
 * The one question before a decision over several rows (`resolve --lines`, `--all-unknown`), as
 * `run` asks before paying (Confirm.ts): on stderr, "yes" to go on, anything else or a closed terminal
 * (Ctrl-D) is no; `--yes` skips it; with no terminal to ask on and no `--yes`, the decision is refused
 * before the service is even asked.
 */
import { Console, Effect } from "effect"
import { ask } from "./Confirm.ts"

/** Shows what is about to be decided and asks once; true on "yes". */
export const askToDecide = (overview: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    yield* Console.error(overview)
    const answer = yield* ask('Decide for these rows? Type "yes" to go on (--yes skips this question): ')
    return /^\s*y(es)?\s*$/i.test(answer)
  })

/** Whether a person can be asked here: stdin is a terminal. */
export const canAsk = (): boolean => process.stdin.isTTY === true
