/** What the payment API client offers its callers: the operations, and the list filters and pages they take. */
import type { Effect, Option, Stream } from "effect"
import type { ClientError } from "./Errors.ts"
import type { ServiceTimes } from "./ServiceClock.ts"
import type { CardPayinRequest, CardPayinResponse, MobileMoneyPayinRequest, MobileMoneyPayinResponse, Pagination, PayoutRequest, PayoutResponse, StatusRecord, Wallet, WalletSummary, WalletTransaction } from "./Schemas.ts"

export interface TransactionFilters {
  readonly wallet_id?: string
  readonly currency?: string
  readonly type?: string
  readonly status?: string
  readonly from_date?: string
  readonly to_date?: string
  readonly page?: number
  readonly limit?: number
}

export interface TransactionsPage {
  readonly transactions: ReadonlyArray<WalletTransaction>
  readonly pagination: Pagination
}

export interface PaymentClientApi {
  readonly wallets: () => Effect.Effect<ReadonlyArray<Wallet>, ClientError>
  readonly transactions: (filters?: TransactionFilters) => Effect.Effect<TransactionsPage, ClientError>
  readonly transactionStream: (filters?: TransactionFilters) => Stream.Stream<WalletTransaction, ClientError>
  readonly summary: () => Effect.Effect<WalletSummary, ClientError>
  readonly status: (reference: string) => Effect.Effect<StatusRecord, ClientError>
  /**
   * `mayStillSend`, when given, is asked after the rate gate, right before the request leaves: false
   * fails it as NotSent (fenced) without sending. A runner that lost its lease while it waited (a
   * paused process, a queue behind the rate limit) thus never sends what it no longer owns.
   */
  readonly payout: (body: PayoutRequest, mayStillSend?: Effect.Effect<boolean>) => Effect.Effect<PayoutResponse, ClientError>
  readonly payinMobileMoney: (body: MobileMoneyPayinRequest) => Effect.Effect<MobileMoneyPayinResponse, ClientError>
  readonly payinCard: (body: CardPayinRequest) => Effect.Effect<CardPayinResponse, ClientError>
  /**
   * The service's clock minus ours (ms), from the `Date` header of the latest answer that had one;
   * none before any. A resend needs the two clocks to agree (DESIGN 7, rule 7).
   */
  readonly serverSkew: Effect.Effect<Option.Option<number>>
  /**
   * A sandbox's declared virtual clock, when the latest answer carried one that is believed
   * (ServiceClock.ts): the resend rules then find the service's days for our instants with it.
   */
  readonly serviceTimes?: Effect.Effect<Option.Option<ServiceTimes>>
  /** Removes our credentials from text the service sent (src/api/Classify.ts): for a raw value quoted in an alarm. */
  readonly scrub: (text: string) => string
}

/** The NotSent reason of a request its runner was no longer entitled to send. */
export const FENCED = "not sent: the batch lease is no longer this runner's"
