/**
 * The OpenAPI 3.1 description of the v1 interface, generated from the endpoint table (Endpoints.ts)
 * and the schemas the client and the sandbox use, so it cannot drift from them. What the spec leaves
 * unsaid stays unsaid: it names no status codes, so success is `200` (what the sandbox answers) and
 * every refusal is `default`, told apart by its body as the client does.
 */
import { JSONSchema, type Schema } from "effect"
import { type Endpoint, V1_ENDPOINTS } from "./Endpoints.ts"
import { EnvelopeA, EnvelopeB, WebhookEvent } from "./Schemas.ts"

export interface ServerVariable {
  readonly default: string
  readonly description: string
}

/** Where the described interface is served: a URL ending in /v1, templated with `{name}` variables. */
export interface OpenApiServer {
  readonly url: string
  readonly description: string
  readonly variables?: Readonly<Record<string, ServerVariable>>
}

type Json = Record<string, unknown>

const JSON_TYPE = "application/json"

const REFUSAL_A =
  "Refused: envelope A, errors keyed by field name (authentication for bad credentials, on any endpoint). The v1 spec names no status codes, so tell success from failure by the body. The sandbox answers 401 (credentials), 404 (unknown reference or path), 422 (invalid input), 429 with Retry-After (a configured rate limit), 5xx only under injected faults."

const REFUSAL_B =
  "Refused: envelope B (error true, error_message); its status may still read success. Bad credentials, a rate limit or a server fault answer envelope A, as on every endpoint. The v1 spec names no status codes; the sandbox answers 422 for invalid input."

const SECURITY_SCHEMES = {
  ApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The merchant's API key; sent together with X-API-Secret." },
  ApiSecret: { type: "apiKey", in: "header", name: "X-API-Secret", description: "The merchant's API secret; sent together with X-API-Key." }
}

const makeConverter = () => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const schemaOf = (schema: Schema.Schema.Any) =>
    JSONSchema.fromAST(schema.ast, {
      definitions,
      definitionPath: "#/components/schemas/",
      target: "openApi3.1",
      // The real service may add fields; the client ignores those it does not know.
      additionalPropertiesStrategy: "allow"
    })
  return { definitions, schemaOf }
}

type SchemaOf = ReturnType<typeof makeConverter>["schemaOf"]

const jsonContent = (schema: unknown) => ({ [JSON_TYPE]: { schema } })

const operation = (endpoint: Endpoint, schemaOf: SchemaOf): Json => {
  const refusal =
    endpoint.failure === EnvelopeB
      ? { description: REFUSAL_B, content: jsonContent({ anyOf: [schemaOf(EnvelopeB), schemaOf(EnvelopeA)] }) }
      : { description: REFUSAL_A, content: jsonContent(schemaOf(EnvelopeA)) }
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description,
    ...(endpoint.parameters.length === 0
      ? {}
      : {
        parameters: endpoint.parameters.map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required,
          description: p.description,
          schema: schemaOf(p.schema)
        }))
      }),
    ...(endpoint.body === undefined ? {} : { requestBody: { required: true, content: jsonContent(schemaOf(endpoint.body)) } }),
    responses: {
      "200": { description: "Accepted or found (the body says which; see the description of default).", content: jsonContent(schemaOf(endpoint.success)) },
      default: refusal
    }
  }
}

const pathsOf = (schemaOf: SchemaOf) => {
  const paths: Record<string, Json> = {}
  for (const endpoint of V1_ENDPOINTS) paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method]: operation(endpoint, schemaOf) }
  return paths
}

const webhooksOf = (schemaOf: SchemaOf) => ({
  transactionOutcome: {
    post: {
      summary: "A pay-in or payout reached an outcome (sent to its callback_url)",
      description:
        "The v1 spec shows no payload, names no events and defines no signature: this is the sandbox's payload, event one of payout.completed, payout.failed, payout.cancelled, payin.completed, payin.failed, payin.cancelled, payin.expired, payout.refunded, payin.refunded. Treat it as a hint and confirm with the status lookup.",
      security: [],
      requestBody: { required: true, content: jsonContent(schemaOf(WebhookEvent)) },
      responses: { "200": { description: "Received; any answer other than 2xx is retried with backoff." } }
    }
  }
})

/** The whole description as a JSON value. */
export const openApiDocument = (server: OpenApiServer): Json => {
  const { definitions, schemaOf } = makeConverter()
  const paths = pathsOf(schemaOf)
  const webhooks = webhooksOf(schemaOf)
  return {
    openapi: "3.1.0",
    info: {
      title: "Payment and Wallet Service Interface",
      version: "v1",
      description:
        "Wallets, history, summary, status, mobile money and card pay-ins, and mobile money payouts. Generated by payouts from the schemas its client and sandbox use. Every request carries Accept: application/json, and a request with a body Content-Type: application/json."
    },
    servers: [server],
    security: [{ ApiKey: [], ApiSecret: [] }],
    paths,
    webhooks,
    components: { schemas: definitions, securitySchemes: SECURITY_SCHEMES }
  }
}

/** The description as the text of a JSON file. */
export const openApiJson = (server: OpenApiServer): string => `${JSON.stringify(openApiDocument(server), null, 2)}\n`
