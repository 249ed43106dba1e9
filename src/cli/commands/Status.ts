import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { UsageError } from "../Errors.ts"
import { PaymentClient } from "../../api/Client.ts"
import { withClient } from "../Connect.ts"
import { jsonOption, printJson } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"
import { statusJson, statusView } from "../Views.ts"

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
