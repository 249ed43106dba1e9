import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import { withClient } from "../Connect.ts"
import { jsonOption, printJson } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"
import { walletsTable } from "../Views.ts"

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
