import { Console, Effect } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import type { walletCommand } from "../commands/Wallet.ts"
import { withClient } from "../Connect.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { userFormat } from "../../output/Format.ts"
import { screenFit } from "../Table.ts"
import { walletsTable } from "../Views.ts"

export const wallet = ({ connection, json, wide }: Parsed<typeof walletCommand>) =>
  Effect.gen(function* () {
    const client = yield* PaymentClient
    const wallets = yield* client.wallets()
    yield* json ? printJson({ wallets }) : Console.log(walletsTable(wallets, yield* userFormat, screenFit(wide)))
  }).pipe(withClient(connection))
