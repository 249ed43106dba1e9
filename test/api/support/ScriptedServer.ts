/** A tiny node:http server on an ephemeral port that answers what each test scripts. */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

export type Reply =
  | { readonly status: number; readonly json?: unknown; readonly text?: string; readonly headers?: Record<string, string> }
  | { readonly reset: true }
  | { readonly hold: true }
  /** Headers and part of the body, then the connection is destroyed. */
  | { readonly cut: number }

export interface ScriptedServer {
  readonly origin: string
  readonly baseUrl: string
  readonly received: Array<Received>
  /** Connections the server has accepted that are still open. */
  readonly open: () => number
}

export const scriptedServer = (
  script: (request: Received, index: number) => Reply
): Effect.Effect<ScriptedServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; state: ScriptedServer }>((resume) => {
      const received: Array<Received> = []
      let open = 0
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const request: Received = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          received.push(request)
          const reply = script(request, received.length - 1)
          if ("reset" in reply) return req.socket.destroy()
          if ("hold" in reply) return
          if ("cut" in reply) {
            res.writeHead(reply.cut, { "content-type": "application/json", "content-length": "1000" })
            return res.write(`{"reference":"TXN`, () => req.socket.destroy())
          }
          const body = reply.json !== undefined ? JSON.stringify(reply.json) : reply.text ?? ""
          res.writeHead(reply.status, {
            ...(reply.json !== undefined ? { "content-type": "application/json" } : {}),
            ...reply.headers
          })
          res.end(body)
        })
      })
      server.on("connection", (socket) => {
        open++
        socket.on("close", () => open--)
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        const origin = `http://127.0.0.1:${port}`
        resume(Effect.succeed({ server, state: { origin, baseUrl: `${origin}/v1`, received, open: () => open } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ state }) => state))

/** A port nothing listens on. */
export const closedPort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = Http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})
