import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { UsageError } from "../Errors.js"
import { PaymentClient } from "../../api/Client.js"
import { withClient } from "../Connect.js"
import { jsonOption, printJson } from "../Output.js"
import { connectionOptions } from "../Settings.js"
import { statusJson, statusView } from "../Views.js"

const reference = Args.text({ name: "REFERENCE" }).pipe(
  Args.withDescription("The reference returned when the pay-in or payout was created (TXN...).")
)

export const statusCommand = Command.make(
  "status",
  { connection: connectionOptions, json: jsonOption, reference },
  ({ connection, json, reference }) =>
    Effect.gen(function* () {
      if (reference.trim() === "") return yield* new UsageError({ reason: "REFERENCE is empty" })
      const client = yield* PaymentClient
      const record = yield* client.status(reference.trim())
      yield* json ? printJson(statusJson(record)) : Console.log(statusView(record))
    }).pipe(withClient(connection))
).pipe(Command.withDescription("Look up the current status of a pay-in or payout by its reference."))
