import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { PaymentClient } from "../../api/Client.js"
import { withClient } from "../Connect.js"
import { jsonOption, printJson } from "../Output.js"
import { connectionOptions } from "../Settings.js"
import { walletsTable } from "../Views.js"

export const walletCommand = Command.make(
  "wallet",
  { connection: connectionOptions, json: jsonOption },
  ({ connection, json }) =>
    Effect.gen(function* () {
      const client = yield* PaymentClient
      const wallets = yield* client.wallets()
      yield* json ? printJson({ wallets }) : Console.log(walletsTable(wallets))
    }).pipe(withClient(connection))
).pipe(Command.withDescription("Show the balances of every wallet (amounts in major units)."))
