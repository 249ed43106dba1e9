/** `payouts wallet`: the command; its handler is in ../handlers/Wallet.ts (loaded on use). */
import { Command } from "@effect/cli"
import { jsonOption, wideOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const walletCommand = Command.make("wallet", { connection: connectionOptions, json: jsonOption, wide: wideOption }).pipe(
  Command.withDescription("Show the balances of every wallet (amounts in major units).")
)
