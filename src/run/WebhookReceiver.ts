/**
 * The `--listen` webhook receiver. The spec defines no signature, so a webhook is never trusted: it
 * only names a reference to look up now. A forged or replayed call costs one status lookup at most.
 *
 * A plain node:http handler: the Effect HTTP server costs 0.3-0.5 ms of CPU per webhook against
 * 0.06-0.09 ms here (5,000 webhooks over keep-alive, the server's CPU, 2026-11-28), and a run
 * receives about one webhook per payout, against a bound of 3 ms of CPU per payout (PERFORMANCE.md).
 */
import { Data, Effect, Option, Queue, Schema } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

const Hint = Schema.Struct({ data: Schema.Struct({ reference: Schema.String.pipe(Schema.maxLength(200)) }) })
const decodeHint = Schema.decodeUnknownOption(Schema.parseJson(Hint))

/** The reference a webhook body names, if it names one in the expected shape (about 2 µs a body). */
export const referenceOf = (body: string): Option.Option<string> => Option.map(decodeHint(body), (hint) => hint.data.reference)

/** Webhook bodies are small JSON: 64 KiB is plenty, and a cap by header and while streaming. */
export const MAX_BODY = 64 * 1024

/** The receiver could not listen where `--listen` says (the address in use, not ours). */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

const answer = (res: ServerResponse, status: number, text: string, close = false) => {
  if (res.headersSent) return void res.end()
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...(close ? { connection: "close" } : {}) })
  res.end(text)
}

/** A body over the cap is answered 413 and its connection closed, so the rest is never read. */
const tooLarge = (req: IncomingMessage, res: ServerResponse) => {
  req.removeAllListeners("data")
  res.once("finish", () => req.destroy())
  answer(res, 413, "body too large", true)
}

export const startWebhookReceiver = (
  /** everyInterface: a wildcard host (`0.0.0.0`, `::`, none), which is no address to post to. */
  listen: { readonly host: string; readonly port: number; readonly everyInterface?: boolean },
  /** Where each named reference goes (the tracker's wakeups): offered from the socket's callback. */
  references: Queue.Enqueue<string>
) =>
  Effect.gen(function* () {
    // Nothing a caller sends may end or slow the run: any failure is an answer, never an error.
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      req.on("error", () => req.destroy())
      if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/webhooks") return answer(res, 404, "not found")
      const declared = Number(req.headers["content-length"])
      if (Number.isFinite(declared) && declared > MAX_BODY) return tooLarge(req, res)
      const chunks: Array<Buffer> = []
      let size = 0
      req.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY) return tooLarge(req, res)
        chunks.push(chunk)
      })
      req.on("end", () => {
        if (size > MAX_BODY) return
        const reference = referenceOf(Buffer.concat(chunks).toString("utf8"))
        if (Option.isNone(reference)) return answer(res, 400, "ignored: no data.reference")
        // An unbounded queue takes it at once; one shut down (the run is ending) refuses it.
        return Queue.unsafeOffer(references, reference.value) ? answer(res, 200, "ok") : answer(res, 503, "shutting down")
      })
    }
    // A slow client is dropped: whole request within 10 s, headers within 5 s.
    const server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, handle)
    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        const failed = (error: NodeJS.ErrnoException) =>
          resume(new ListenError({ message: `cannot listen for webhooks at ${listen.host}:${listen.port}: ${error.code ?? error.message}` }))
        server.once("error", failed)
        server.listen(listen.port, listen.host, () => {
          server.off("error", failed)
          // Once listening, a server error (a socket's) must not end the process.
          server.on("error", () => undefined)
          resume(Effect.void)
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const port = (server.address() as AddressInfo).port
    const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host === "" ? "0.0.0.0" : listen.host
    return { url: `http://${host}:${port}/webhooks`, everyInterface: listen.everyInterface === true }
  })
