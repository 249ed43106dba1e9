import { Command, Options } from "@effect/cli"
import { Chunk, Console, Effect, Option, Schema, Stream } from "effect"
import { PaymentClient, type TransactionFilters } from "../../api/Client.ts"
import { TransactionStatus, TransactionType } from "../../api/Schemas.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import { jsonOption, type OptionValue, printJson } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"
import { pageFooter, transactionsTable } from "../Views.ts"

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
  type: Options.choice("type", TransactionType.literals).pipe(Options.optional),
  status: Options.choice("status", TransactionStatus.literals).pipe(Options.optional),
  from: day("from").pipe(
    Options.withDescription("From this UTC day, YYYY-MM-DD (history goes back 90 days)."),
    Options.optional
  ),
  to: day("to").pipe(Options.withDescription("Up to this UTC day, YYYY-MM-DD."), Options.optional),
  page: Options.integer("page").pipe(Options.withPseudoName("N"), Options.withDescription("Page number (default 1)."), Options.optional),
  limit: Options.integer("limit").pipe(Options.withPseudoName("N"), Options.withDescription("Rows per page, 1 to 100 (default 20)."), Options.optional),
  all: Options.boolean("all").pipe(Options.withDescription("Fetch every page."))
})

type Parsed = OptionValue<typeof filterOptions>

const checkPaging = (args: Parsed) =>
  Option.isSome(args.page) && args.all
    ? Effect.fail(new UsageError({ reason: "--page and --all cannot be used together" }))
    : Option.exists(args.page, (page) => page < 1)
      ? Effect.fail(new UsageError({ reason: "--page must be 1 or more" }))
      : Option.exists(args.limit, (limit) => limit < 1 || limit > 100)
        ? Effect.fail(new UsageError({ reason: "--limit must be between 1 and 100" }))
        : Effect.void

const filtersOf = (args: Parsed): TransactionFilters => ({
  wallet_id: Option.getOrUndefined(args.walletId),
  currency: Option.getOrUndefined(args.currency),
  type: Option.getOrUndefined(args.type),
  status: Option.getOrUndefined(args.status),
  from_date: Option.getOrUndefined(args.from),
  to_date: Option.getOrUndefined(args.to),
  page: Option.getOrUndefined(args.page),
  limit: Option.getOrUndefined(args.limit)
})

export const transactionsCommand = Command.make(
  "transactions",
  { connection: connectionOptions, json: jsonOption, args: filterOptions },
  ({ connection, json, args }) =>
    Effect.gen(function* () {
      yield* checkPaging(args)
      const client = yield* PaymentClient
      const filters = filtersOf(args)
      if (args.all) {
        const transactions = Chunk.toReadonlyArray(yield* Stream.runCollect(client.transactionStream(filters)))
        return yield* json
          ? printJson({ transactions })
          : Console.log(`${transactionsTable(transactions)}\n${transactions.length} transactions.`)
      }
      const page = yield* client.transactions(filters)
      yield* json ? printJson(page) : Console.log(`${transactionsTable(page.transactions)}\n${pageFooter(page.pagination)}`)
    }).pipe(withClient(connection))
).pipe(Command.withDescription("List the wallet transaction history (90 days), newest first, one page or --all."))
