import { createHash } from "node:crypto"
import { Config, ConfigError, Context, Duration, Either, Layer, Redacted } from "effect"
import { AccountId } from "../domain/Ids.ts"

/** Bounds of the retries of GET requests (POSTs never retry on their own). */
export interface GetRetryPolicy {
  readonly times: number
  readonly base: Duration.Duration
  readonly maxElapsed: Duration.Duration
}

export interface PaymentClientSettings {
  /** Ends in /v1, no trailing slash. */
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly apiSecret: Redacted.Redacted<string>
  readonly requestTimeout: Duration.Duration
  readonly getRetry: GetRetryPolicy
}

export interface PaymentClientSettingsInput {
  readonly baseUrl: string
  readonly apiKey: string | Redacted.Redacted<string>
  readonly apiSecret: string | Redacted.Redacted<string>
  readonly requestTimeout?: Duration.DurationInput
  readonly getRetry?: Partial<{
    readonly times: number
    readonly base: Duration.DurationInput
    readonly maxElapsed: Duration.DurationInput
  }>
}

export const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(30)

const redacted = (value: string | Redacted.Redacted<string>) =>
  Redacted.isRedacted(value) ? value : Redacted.make(value)

const trimSlash = (url: string) => url.replace(/\/+$/, "")

export const makeSettings = (input: PaymentClientSettingsInput): PaymentClientSettings => ({
  baseUrl: trimSlash(input.baseUrl),
  apiKey: redacted(input.apiKey),
  apiSecret: redacted(input.apiSecret),
  requestTimeout: Duration.decode(input.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT),
  getRetry: {
    times: input.getRetry?.times ?? 4,
    base: Duration.decode(input.getRetry?.base ?? "250 millis"),
    maxElapsed: Duration.decode(input.getRetry?.maxElapsed ?? "45 seconds")
  }
})

/** An absolute http(s) URL whose path ends with the version segment v1. */
export const checkBaseUrl = (value: string): Either.Either<string, string> => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return Either.left("must be an absolute http(s) URL")
  }
  const trimmed = trimSlash(value)
  return trimmed.endsWith("/v1") ? Either.right(trimmed) : Either.left("must end with /v1")
}

const baseUrlConfig = Config.string("PAYOUTS_BASE_URL").pipe(
  Config.mapOrFail((value) =>
    Either.mapLeft(checkBaseUrl(value), (why) => ConfigError.InvalidData([], `PAYOUTS_BASE_URL ${why}`))
  )
)

/** PAYOUTS_BASE_URL, PAYOUTS_API_KEY, PAYOUTS_API_SECRET. */
export const settingsConfig: Config.Config<PaymentClientSettings> = Config.all({
  baseUrl: baseUrlConfig,
  apiKey: Config.redacted("PAYOUTS_API_KEY"),
  apiSecret: Config.redacted("PAYOUTS_API_SECRET")
}).pipe(Config.map(makeSettings))

export class PaymentClientConfig extends Context.Tag("api/PaymentClientConfig")<
  PaymentClientConfig,
  PaymentClientSettings
>() {
  static readonly layer = (input: PaymentClientSettingsInput): Layer.Layer<PaymentClientConfig> =>
    Layer.succeed(PaymentClientConfig, makeSettings(input))

  static readonly layerFromConfig: Layer.Layer<PaymentClientConfig, ConfigError.ConfigError> = Layer.effect(
    PaymentClientConfig,
    settingsConfig
  )
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/**
 * Scope of everything the state store keeps (DESIGN 7): the service's host plus the ids of its
 * wallets, 16 hex chars. Not the API key: a rotated key keeps the account's history, ids and tokens,
 * and two keys of one account can be used side by side during a rotation.
 */
/** The merchant account at the service, whatever address reaches it: what row tokens are minted from. */
export const walletScope = (walletIds: ReadonlyArray<string>): string =>
  sha256(`wallets\n${[...new Set(walletIds)].sort().join(",")}`).slice(0, 16)

export const serviceAccountId = (baseUrl: string, walletIds: ReadonlyArray<string>): AccountId => {
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).host.toLowerCase() : trimSlash(baseUrl)
  return AccountId.make(sha256(`${host}\n${[...new Set(walletIds)].sort().join(",")}`).slice(0, 16))
}
