/**
 * The multi-worker soak's sandbox, in a process of its own (options as JSON in argv[2]; one JSON line
 * with its addresses on stdout, then it serves until killed). Workers reach it through a TCP relay in
 * this same process that passes bytes unchanged and notes the time at which each /v1 request line
 * arrives: what the account's rate limit sees. `GET /times` on the stats port returns those times.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { createServer as createHttpServer } from "node:http"
import { connect, createServer, type Server, type Socket } from "node:net"
import { startSandbox, type SandboxOptions } from "../../src/sandbox/Sandbox.ts"

const options = JSON.parse(process.argv[2] ?? "{}") as SandboxOptions
/** A request line to the API: nothing else the clients write (JSON bodies, headers) contains one. */
const REQUEST_LINE = /(?:GET|POST|PUT|PATCH|DELETE) \/v1\//g
const LONGEST = "DELETE /v1/".length

const times: Array<number> = []

/** A relay to `port`: every chunk a client writes is scanned (with the tail of the last) for request lines. */
const relay = (port: number): Server =>
  createServer((client: Socket) => {
    const upstream = connect(port, "127.0.0.1")
    // A request line split between two chunks is found in the tail of the last one plus this one;
    // one found whole in that tail was counted already.
    let tail = ""
    client.on("data", (chunk: Buffer) => {
      const now = Date.now()
      const text = tail + chunk.toString("latin1")
      for (const m of text.matchAll(REQUEST_LINE)) if (m.index + m[0].length > tail.length) times.push(now)
      tail = text.slice(-LONGEST)
    })
    client.pipe(upstream).pipe(client)
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on("error", end).on("close", end)
    upstream.on("error", end).on("close", end)
  })

const listen = (server: Server | ReturnType<typeof createHttpServer>) =>
  Effect.async<number>((resume) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const stats = createHttpServer((req, res) => {
  req.resume()
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ times }))
})

Effect.gen(function* () {
  const info = yield* startSandbox(options)
  const relayPort = yield* listen(relay(Number(new URL(info.origin).port)))
  const statsPort = yield* listen(stats)
  const relayOrigin = `http://127.0.0.1:${relayPort}`
  yield* Effect.sync(() =>
    process.stdout.write(
      `${JSON.stringify({ ...info, baseUrl: info.baseUrl.replace(info.origin, relayOrigin), statsUrl: `http://127.0.0.1:${statsPort}/times` })}\n`
    )
  )
  return yield* Effect.never
}).pipe(Effect.scoped, NodeRuntime.runMain)
