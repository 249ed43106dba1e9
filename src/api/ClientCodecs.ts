// The client's decoders of answers and encoders of request bodies, each compiled once per process.
import { Either, ParseResult, Schema } from "effect"
import { NotSent } from "./Errors.ts"
import {
  CardPayinRequest,
  CardPayinResponse,
  MobileMoneyPayinRequest,
  MobileMoneyPayinResponse,
  PayoutRequest,
  PayoutResponse,
  StatusResponse,
  SummaryResponse,
  TransactionsResponse,
  WalletsResponse
} from "./Schemas.ts"

// Each decoder and encoder compiled once.
export const decodeWallets = Schema.decodeUnknownOption(WalletsResponse)
export const decodeTransactions = Schema.decodeUnknownOption(TransactionsResponse)
export const decodeSummary = Schema.decodeUnknownOption(SummaryResponse)
export const decodeStatus = Schema.decodeUnknownOption(StatusResponse)
export const decodePayout = Schema.decodeUnknownOption(PayoutResponse)
export const decodeMobileMoney = Schema.decodeUnknownOption(MobileMoneyPayinResponse)
export const decodeCard = Schema.decodeUnknownOption(CardPayinResponse)

// Synchronous (an Either, itself an effect): a body is encoded without a step of the runtime per field.
const encoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encodeEither(schema)
  return (body: A): Either.Either<I, NotSent> =>
    Either.mapLeft(encode(body), (e) => new NotSent({ reason: `invalid request body: ${ParseResult.TreeFormatter.formatErrorSync(e)}` }))
}
export const encodePayout = encoder(Schema.Struct(PayoutRequest.fields))
export const encodeMobileMoney = encoder(Schema.Struct(MobileMoneyPayinRequest.fields))
export const encodeCard = encoder(Schema.Struct(CardPayinRequest.fields))
