import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import { withClient } from "../Connect.ts"
import { jsonOption, printJson } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"
import { summaryView } from "../Views.ts"

export const summaryCommand = Command.make(
  "summary",
  { connection: connectionOptions, json: jsonOption },
  ({ connection, json }) =>
    Effect.gen(function* () {
      const client = yield* PaymentClient
      const summary = yield* client.summary()
      yield* json ? printJson(summary) : Console.log(summaryView(summary))
    }).pipe(withClient(connection))
).pipe(Command.withDescription("Show balances per currency and the activity of the last 30 days."))
