/**
 * The binary where a person meets the question before paying: under a pseudo-terminal (`script`),
 * answering once it is asked; and a service on loopback that is not our sandbox (a tunnel to a real
 * service looks like this: the API under /v1, no /__sandbox), which is always asked.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import type { Sandbox } from "../kit/Sandbox.ts"

const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

export interface OnTerminal {
  readonly code: number
  readonly output: string
}

/** `payouts ARGS` under a pseudo-terminal, typing `answer` once the question is asked (never, if undefined). */
export const onTerminal = (cwd: string, env: Readonly<Record<string, string | undefined>>, args: ReadonlyArray<string>, answer: string | undefined) =>
  Effect.async<OnTerminal>((resume) => {
    const command = ["node", BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
    let output = ""
    let answered = false
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (!answered && answer !== undefined && output.includes('Type "yes"')) {
        answered = true
        child.stdin.write(`${answer}\n`)
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("close", (code) => resume(Effect.succeed({ code: code ?? -1, output })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** A base URL on 127.0.0.1 that forwards /v1 to `sandbox` and answers 404 to everything else; closed with the scope. */
export const serviceOnLoopback = (sandbox: Sandbox) =>
  Effect.acquireRelease(
    Effect.async<{ readonly baseUrl: string; readonly close: () => void }>((resume) => {
      const target = new URL(sandbox.origin)
      const server = createServer((req, res) => {
        if (!(req.url ?? "").startsWith("/v1/")) {
          res.writeHead(404, { "content-type": "application/json" })
          res.end(JSON.stringify({ success: false, message: "Not found", errors: { path: ["No such endpoint"] } }))
          return
        }
        const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        })
        upstream.on("error", () => res.destroy())
        req.pipe(upstream)
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => (server.closeAllConnections(), server.close()) }))
      )
    }),
    (service) => Effect.sync(() => service.close())
  )
