/**
 * The sandbox in a process of its own for the bench: options as JSON in argv[2], one JSON line with
 * its address on stdout, then it serves until killed. It also runs a webhook sink (answers 204) to
 * stand for a merchant receiver elsewhere, so runs without --listen do not make the sandbox retry
 * webhooks to a closed port. It stops when its stdin closes: a bench killed midway leaves no sandbox
 * behind (on a shared machine an orphan kept serving its retries for minutes).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { createServer } from "node:http"
import { startSandbox, type SandboxOptions } from "../../src/sandbox/Sandbox.ts"

const options = JSON.parse(process.argv[2] ?? "{}") as SandboxOptions

process.stdin.resume()
process.stdin.once("close", () => process.kill(process.pid, "SIGTERM"))

const sink = createServer((req, res) => {
  req.resume()
  req.on("end", () => res.writeHead(204).end())
})

Effect.gen(function* () {
  const port = yield* Effect.async<number>((resume) => {
    sink.listen(0, "127.0.0.1", () => {
      const address = sink.address()
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
  const info = yield* startSandbox(options)
  yield* Effect.sync(() => process.stdout.write(`${JSON.stringify({ ...info, sinkUrl: `http://127.0.0.1:${port}/webhooks` })}\n`))
  return yield* Effect.never
}).pipe(Effect.scoped, NodeRuntime.runMain)
