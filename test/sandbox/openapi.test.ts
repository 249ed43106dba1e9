/**
 * The OpenAPI description of the v1 interface: valid for a maintained validator, covering exactly the
 * v1 routes the sandbox's router serves, and true of real answers (each validates against the schema
 * described for its status). `payouts sandbox --openapi FILE` writes the same description and exits.
 */
import { describe, expect, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { launchSandbox } from "../../src/sandbox/Sandbox.ts"
import { advance, type Api, cardBody, deliveriesDone, payinBody, payoutBody, receiver, sandbox, webhooks } from "../kit/Sandbox.ts"
import { scopedTempDir } from "../kit/TempDir.ts"

type Json = Record<string, any>

const validOpenApi = (doc: unknown) => Effect.promise(() => new Validator().validate(doc as Json))

const served = (api: Api) =>
  Effect.map(api.get("/__sandbox/openapi.json"), (r) => {
    expect(r.status).toBe(200)
    expect(r.headers.get("content-type")).toContain("application/json")
    return r.json as Json
  })

/** Validates a value against a schema of the document (its $refs point into the document's components). */
const checker = (doc: Json) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  return (schema: Json, value: unknown) => {
    const validate = ajv.compile({ ...schema, components: doc.components })
    return validate(value) ? "valid" : JSON.stringify(validate.errors)
  }
}

/** The schema an answer of `status` to METHOD PATH must match: the one described for that status, else `default`. */
const responseSchema = (doc: Json, method: string, path: string, status: number): Json => {
  const responses = doc.paths[path]?.[method]?.responses
  expect(responses, `${method} ${path} is described`).toBeDefined()
  return (responses[String(status)] ?? responses.default).content["application/json"].schema
}

const requestSchema = (doc: Json, method: string, path: string): Json => doc.paths[path][method].requestBody.content["application/json"].schema

const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

const runCli = (args: ReadonlyArray<string>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] })),
    (child) =>
      Effect.promise(
        () =>
          new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
            let stdout = ""
            let stderr = ""
            child.stdout.on("data", (d) => (stdout += d))
            child.stderr.on("data", (d) => (stderr += d))
            child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
          })
      ),
    (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  )

describe("OpenAPI description of the v1 interface", () => {
  it.scopedLive("the sandbox serves a valid OpenAPI 3.1 document naming itself as the server and the two credential headers as its security", () =>
    Effect.gen(function* () {
      const api = yield* sandbox()
      const doc = yield* served(api)
      expect(yield* validOpenApi(doc)).toEqual({ valid: true })
      expect(doc.openapi).toBe("3.1.0")
      expect(doc.servers).toEqual([{ url: api.baseUrl, description: expect.any(String) }])
      const schemes = Object.values(doc.components.securitySchemes as Record<string, Json>)
      expect(schemes.map((s) => [s.type, s.in, s.name]).sort()).toEqual([["apiKey", "header", "X-API-Key"], ["apiKey", "header", "X-API-Secret"]])
      expect(doc.security).toEqual([Object.fromEntries(Object.keys(doc.components.securitySchemes).map((name) => [name, []]))])
      const listing = doc.paths["/wallet/transactions"].get.parameters as Array<Json>
      expect(Object.fromEntries(listing.map((p) => [p.name, p.schema.default]))).toMatchObject({ page: 1, limit: 20 })
      expect(listing.find((p) => p.name === "limit")?.schema.maximum).toBe(100)
      // The spec names no status codes: success is 200 and each refusal is default, with its envelope.
      expect(responseSchema(doc, "post", "/payments/payout/mobile-money", 500)).toEqual({ $ref: "#/components/schemas/EnvelopeA" })
      expect(responseSchema(doc, "post", "/payments/payin/card", 422).anyOf).toContainEqual({ $ref: "#/components/schemas/EnvelopeB" })
    })
  )

  it.scopedLive("describes exactly the v1 routes the sandbox's router serves", () =>
    Effect.gen(function* () {
      const info = yield* Effect.orDie(launchSandbox({}))
      const servedRoutes = info.routes
        .filter((r) => r.path.startsWith("/v1/"))
        .map((r) => `${r.method.toLowerCase()} ${r.path.slice("/v1".length).replace(/:(\w+)/g, "{$1}")}`)
      const response = yield* Effect.promise(() =>
        fetch(`${info.origin}/__sandbox/openapi.json`, { headers: { "X-API-Key": info.key, "X-API-Secret": info.secret } })
      )
      const doc = (yield* Effect.promise(() => response.json())) as Json
      const described = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      expect(servedRoutes.length).toBeGreaterThanOrEqual(7)
      expect(described.sort()).toEqual([...new Set(servedRoutes)].sort())
    })
  )

  it.scopedLive("real answers of the sandbox, successes and refusals, validate against the schemas described for their status", () =>
    Effect.gen(function* () {
      const hooks = yield* receiver()
      const api = yield* sandbox({ payoutDelaySeconds: 60 })
      const doc = yield* served(api)
      const check = checker(doc)
      const answers: Array<[string, string, { status: number; json: unknown }]> = []
      const get = (path: string, query = "", headers: Record<string, string> = {}) =>
        Effect.tap(api.get(`/v1${path}${query}`, headers), (r) => answers.push(["get", path, r]))
      const post = (path: string, body: Json) => {
        expect(check(requestSchema(doc, "post", path), body), `request to ${path}`).toBe("valid")
        return Effect.tap(api.send("POST", `/v1${path}`, body), (r) => answers.push(["post", path, r]))
      }

      const paid = yield* post("/payments/payout/mobile-money", payoutBody({ callback_url: hooks.url }))
      yield* post("/payments/payout/mobile-money", payoutBody({ amount: 5_000_000 }))
      yield* post("/payments/payin/mobile-money", payinBody())
      yield* post("/payments/payin/card", cardBody())
      yield* Effect.tap(api.send("POST", "/v1/payments/payin/card", { ...cardBody(), customer: "nobody" }), (r) => answers.push(["post", "/payments/payin/card", r]))
      yield* get("/wallet")
      yield* get("/wallet", "", { "X-API-Secret": "wrong" })
      yield* get("/wallet/summary")
      yield* get("/wallet/transactions", "?type=payout&limit=1")
      yield* get("/wallet/transactions", "?from_date=23-11-2026")
      yield* get(`/payment/status/${paid.json.reference}`)
      yield* Effect.tap(api.get("/v1/payment/status/TXNNOSUCH"), (r) => answers.push(["get", "/payment/status/{reference}", r]))

      // Successes and each kind of refusal the sandbox gives, so both sides of every description are tried.
      expect(answers.map(([, , r]) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 401, 404, 422, 422, 422])
      for (const [method, path, reply] of answers) {
        const template = path.startsWith("/payment/status/") ? "/payment/status/{reference}" : path
        expect(check(responseSchema(doc, method, template, reply.status), reply.json), `${method} ${path} ${reply.status}`).toBe("valid")
      }
      // The check has teeth: an answer does not pass for another endpoint's.
      const walletAnswer = answers.find(([, path, r]) => path === "/wallet" && r.status === 200)![2].json
      expect(check(responseSchema(doc, "get", "/payment/status/{reference}", 200), walletAnswer)).not.toBe("valid")

      yield* advance(api, 120)
      yield* deliveriesDone(api, 1, 60_000)
      const [hook] = yield* webhooks(hooks, 1, 60_000)
      expect(check(doc.webhooks.transactionOutcome.post.requestBody.content["application/json"].schema, hook.body)).toBe("valid")
    })
  )

  it.live("payouts sandbox --openapi FILE writes the same description, its server the --host and --port given, and exits 0 without serving", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("payouts-openapi-")
      const file = join(dir, "payments-v1.json")
      const result = yield* runCli(["sandbox", "--openapi", file, "--port", "4999"])
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: "" })
      expect(result.stdout).toContain(file)
      const written = JSON.parse(readFileSync(file, "utf8")) as Json
      expect(yield* validOpenApi(written)).toEqual({ valid: true })
      expect(written.servers[0]).toMatchObject({ url: "http://{host}:{port}/v1", variables: { host: { default: "127.0.0.1" }, port: { default: "4999" } } })
      const api = yield* sandbox()
      const live = yield* served(api)
      expect({ ...written, servers: [] }).toEqual({ ...live, servers: [] })
    }).pipe(Effect.scoped)
  )
})
