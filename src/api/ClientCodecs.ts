// The client's decoders of answers and encoders of request bodies, each compiled once per process.
import { Either, ParseResult, Schema } from "effect"
import { NotSent } from "./Errors.ts"
import * as Api from "./Schemas.ts"

// Each decoder and encoder compiled once.
export const decodeWallets = Schema.decodeUnknownOption(Api.WalletsResponse)
export const decodeTransactions = Schema.decodeUnknownOption(Api.TransactionsResponse)
export const decodeSummary = Schema.decodeUnknownOption(Api.SummaryResponse)
export const decodeStatus = Schema.decodeUnknownOption(Api.StatusResponse)
export const decodePayout = Schema.decodeUnknownOption(Api.PayoutResponse)
export const decodeMobileMoney = Schema.decodeUnknownOption(Api.MobileMoneyPayinResponse)
export const decodeCard = Schema.decodeUnknownOption(Api.CardPayinResponse)

// Synchronous (an Either, itself an effect): a body is encoded without a step of the runtime per field.
const encoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encodeEither(schema)
  return (body: A): Either.Either<I, NotSent> =>
    Either.mapLeft(encode(body), (e) => new NotSent({ reason: `invalid request body: ${ParseResult.TreeFormatter.formatErrorSync(e)}` }))
}
export const encodePayout = encoder(Schema.Struct(Api.PayoutRequest.fields))
export const encodeMobileMoney = encoder(Schema.Struct(Api.MobileMoneyPayinRequest.fields))
export const encodeCard = encoder(Schema.Struct(Api.CardPayinRequest.fields))
