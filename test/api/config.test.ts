import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Layer, Redacted } from "effect"
import { checkBaseUrl, PaymentClientConfig, serviceAccountId } from "../../src/api/ClientConfig.ts"

const fromEnv = (env: Record<string, string>) =>
  Effect.flatMap(PaymentClientConfig, Effect.succeed).pipe(
    Effect.provide(PaymentClientConfig.layerFromConfig.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))
  )

describe("PaymentClientConfig", () => {
  it.effect("reads PAYOUTS_BASE_URL, PAYOUTS_API_KEY, PAYOUTS_API_SECRET; secrets stay redacted", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv({
        PAYOUTS_BASE_URL: "https://api.example.com/v1/",
        PAYOUTS_API_KEY: "live-key-123456",
        PAYOUTS_API_SECRET: "live-secret-654321"
      })
      expect(settings.baseUrl).toBe("https://api.example.com/v1")
      expect(Redacted.value(settings.apiKey)).toBe("live-key-123456")
      expect(String(settings.apiSecret)).not.toContain("live-secret")
      expect(JSON.stringify(settings)).not.toContain("live-secret")
      expect(Duration.toMillis(settings.requestTimeout)).toBe(30_000)
    }))

  it.effect("names the missing or invalid variable", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(fromEnv({ PAYOUTS_BASE_URL: "https://x.example/v1", PAYOUTS_API_KEY: "k" }))
      expect(String(missing)).toContain("PAYOUTS_API_SECRET")
      const bad = yield* Effect.flip(fromEnv({ PAYOUTS_BASE_URL: "https://x.example/v2", PAYOUTS_API_KEY: "k", PAYOUTS_API_SECRET: "s" }))
      expect(String(bad)).toContain("PAYOUTS_BASE_URL must end with /v1")
    }))

  it("checks base URLs", () => {
    expect(checkBaseUrl("http://127.0.0.1:8080/v1")).toEqual(Either.right("http://127.0.0.1:8080/v1"))
    expect(Either.isLeft(checkBaseUrl("ftp://x/v1"))).toBe(true)
    expect(Either.isLeft(checkBaseUrl("not a url"))).toBe(true)
  })

  it("the account is the service's host plus its wallet ids: short, stable, the same for any key", () => {
    const id = serviceAccountId("https://api.example.com/v1", ["wal_xaf_1", "wal_xof_1"])
    expect(id).toMatch(/^[0-9a-f]{16}$/)
    expect(serviceAccountId("https://API.example.com/v1/", ["wal_xof_1", "wal_xaf_1"])).toBe(id)
    expect(serviceAccountId("http://127.0.0.1:9000/v1", ["wal_xaf_1", "wal_xof_1"])).not.toBe(id)
    expect(serviceAccountId("https://api.example.com/v1", ["wal_xaf_2", "wal_xof_1"])).not.toBe(id)
  })
})
