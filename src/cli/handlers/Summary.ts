import { Console, Effect } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import type { summaryCommand } from "../commands/Summary.ts"
import { userFormat } from "../../output/Format.ts"
import { withClient } from "../Connect.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { summaryView } from "../Views.ts"

export const summary = ({ connection, json }: Parsed<typeof summaryCommand>) =>
  Effect.gen(function* () {
    const client = yield* PaymentClient
    const summary = yield* client.summary()
    yield* json ? printJson(summary) : Console.log(summaryView(summary, yield* userFormat))
  }).pipe(withClient(connection))
