import { Chunk, Console, Effect, Option, Stream } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import type { TransactionFilters } from "../../api/ClientApi.ts"
import type { transactionsCommand } from "../commands/Transactions.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { userFormat } from "../../output/Format.ts"
import { screenFit } from "../Table.ts"
import { pageFooter, transactionsTable } from "../Views.ts"

type Filters = Parsed<typeof transactionsCommand>["args"]

const checkPaging = (args: Filters) =>
  Option.isSome(args.page) && args.all
    ? Effect.fail(new UsageError({ reason: "--page and --all cannot be used together" }))
    : Option.exists(args.page, (page) => page < 1)
      ? Effect.fail(new UsageError({ reason: "--page must be 1 or more" }))
      : Option.exists(args.limit, (limit) => limit < 1 || limit > 100)
        ? Effect.fail(new UsageError({ reason: "--limit must be between 1 and 100" }))
        : Effect.void

const filtersOf = (args: Filters): TransactionFilters => ({
  wallet_id: Option.getOrUndefined(args.walletId),
  currency: Option.getOrUndefined(args.currency),
  type: Option.getOrUndefined(args.type),
  status: Option.getOrUndefined(args.status),
  from_date: Option.getOrUndefined(args.from),
  to_date: Option.getOrUndefined(args.to),
  page: Option.getOrUndefined(args.page),
  limit: Option.getOrUndefined(args.limit)
})

export const transactions = ({ connection, json, wide, args }: Parsed<typeof transactionsCommand>) =>
  Effect.gen(function* () {
    yield* checkPaging(args)
    const client = yield* PaymentClient
    const filters = filtersOf(args)
    const f = yield* userFormat
    if (args.all) {
      const transactions = Chunk.toReadonlyArray(yield* Stream.runCollect(client.transactionStream(filters)))
      return yield* json
        ? printJson({ transactions })
        : Console.log(`${transactionsTable(transactions, f, screenFit(wide))}\n${f.count(transactions.length)} transactions.`)
    }
    const page = yield* client.transactions(filters)
    yield* json ? printJson(page) : Console.log(`${transactionsTable(page.transactions, f, screenFit(wide))}\n${pageFooter(page.pagination, f)}`)
  }).pipe(withClient(connection))
