/**
 * A real webhook receiver on port 0 for the `--notify` tests, and a Standard Webhooks verifier written
 * here from the spec (not the product's signer), so a signature the product gets wrong fails here.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import { fileURLToPath } from "node:url"

export interface Delivery {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
  readonly status: number | "hang"
}

/** What the receiver answers to its n-th delivery (from 0): a status, or no answer at all. */
export type Answer = (n: number) => number | "hang"

/** Starts a receiver; its URL carries a path token, as a chat or incident tool's webhook URL does. */
export const receiver = (answer: Answer = () => 204) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; deliveries: Array<Delivery>; close: () => Promise<void> }>((ok) => {
          const deliveries: Array<Delivery> = []
          const hung: Array<ServerResponse> = []
          const server = createServer((req, res) => {
            let body = ""
            req.on("data", (d) => (body += d))
            req.on("end", () => {
              const status = answer(deliveries.length)
              deliveries.push({ headers: req.headers, body, at: Date.now(), status })
              if (status === "hang") return void hung.push(res)
              res.writeHead(status).end()
            })
          })
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as { port: number }
            ok({
              url: `http://127.0.0.1:${port}/hooks/T0KEN-in-path`,
              deliveries,
              close: () => new Promise<void>((done) => {
                server.closeAllConnections()
                server.close(() => done())
              })
            })
          })
        })
    ),
    (r) => Effect.promise(r.close)
  )

/** A fresh signing secret as the spec writes it: whsec_ + base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/** Standard Webhooks verification: an HMAC-SHA256 over `id.timestamp.body` among the `v1,` signatures, timestamp within 5 minutes. */
export const verifies = (secret: string, delivery: Pick<Delivery, "headers" | "body">, nowMs = Date.now()): boolean => {
  const id = header(delivery.headers, "webhook-id")
  const timestamp = header(delivery.headers, "webhook-timestamp")
  const signatures = header(delivery.headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined || !/^\d+$/.test(timestamp)) return false
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > 300) return false
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64")
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${delivery.body}`).digest()
  return signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2)
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "base64")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

export const waitFor = (what: string, check: () => boolean, timeoutMs = 60_000) =>
  Effect.gen(function* () {
    const began = Date.now()
    while (!check()) {
      if (Date.now() - began > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("50 millis")
    }
  })

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

export interface Ended {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** When the process ended (Date.now()). */
  readonly at: number
}

/** `payouts ARGS` to its end, with only the environment given (no service settings inherited). */
export const payouts = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const { PAYOUTS_NOTIFY_SECRET: _s, PAYOUTS_NOTIFY_URL: _u, PAYOUTS_STATE: _t, ...inherited } = process.env
      const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...inherited, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout?.on("data", (d) => (stdout += d))
      child.stderr?.on("data", (d) => (stderr += d))
      const ended = new Promise<Ended>((ok) => child.on("close", (code) => ok({ code: code ?? -1, stdout, stderr, at: Date.now() })))
      return { child, ended }
    }),
    (p) => Effect.promise(() => p.ended),
    (p) => Effect.sync(() => p.child.exitCode === null && p.child.kill("SIGKILL"))
  )
