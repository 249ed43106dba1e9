/** `payouts transactions`: the command; its handler is in ../handlers/Transactions.ts (loaded on use). */
import { Command, Options } from "@effect/cli"
import { Schema } from "effect"
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from "../../api/TransactionFilters.ts"
import { jsonOption, wideOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

const day = (flag: string) =>
  Options.text(flag).pipe(
    Options.withPseudoName("YYYY-MM-DD"),
    Options.withSchema(
      Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => `--${flag} must be a date written YYYY-MM-DD` }))
    )
  )

const filterOptions = Options.all({
  walletId: Options.text("wallet-id").pipe(Options.withPseudoName("ID"), Options.withDescription("Only this wallet (wal_...)."), Options.optional),
  currency: Options.text("currency").pipe(
    Options.withPseudoName("CUR"),
    Options.withDescription("Only this currency (XAF, XOF, ...)."),
    Options.map((text) => text.trim().toUpperCase()),
    Options.optional
  ),
  type: Options.choice("type", TRANSACTION_TYPES).pipe(Options.withDescription("Only transactions of this type."), Options.optional),
  status: Options.choice("status", TRANSACTION_STATUSES).pipe(Options.withDescription("Only transactions in this status."), Options.optional),
  from: day("from").pipe(
    Options.withDescription("From this UTC day, YYYY-MM-DD (history goes back 90 days)."),
    Options.optional
  ),
  to: day("to").pipe(Options.withDescription("Up to this UTC day, YYYY-MM-DD."), Options.optional),
  page: Options.integer("page").pipe(Options.withPseudoName("N"), Options.withDescription("Page number (default 1)."), Options.optional),
  limit: Options.integer("limit").pipe(Options.withPseudoName("N"), Options.withDescription("Rows per page, 1 to 100 (default 20)."), Options.optional),
  all: Options.boolean("all").pipe(Options.withDescription("Fetch every page."))
})

export const transactionsCommand = Command.make("transactions", { connection: connectionOptions, json: jsonOption, wide: wideOption, args: filterOptions }).pipe(
  Command.withDescription("List the wallet transaction history (90 days), newest first, one page or --all.")
)
