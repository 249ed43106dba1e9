/**
 * A batch's summary and report as its run wrote them (DESIGN 9), found in the console's job folder
 * (done/, attention/, processing/, rejected/) by the batch id their summary names, and served under
 * /batches/ID/summary and /batches/ID/report. A batch run outside the job folder has its outputs where
 * its file was: the page says so and shows the store's figures.
 */
import { FileSystem, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { join } from "node:path"
import type { JobFolder } from "../../jobs/JobFolder.ts"
import { ConsoleSettings } from "../Settings.ts"

const SummaryId = Schema.parseJson(Schema.Struct({ batch_id: Schema.String }))
const decodeId = Schema.decodeUnknownOption(SummaryId)

const Params = Schema.Struct({ id: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{8,64}$/)) })

/** The summary and report files of batch `id` in `folder`, newest folder first. */
const filesOf = (folder: JobFolder, id: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    for (const dir of [folder.done, folder.attention, folder.processing, folder.rejected]) {
      const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => []))
      for (const name of names.filter((n) => n.endsWith(".summary.json")).sort()) {
        const text = yield* fs.readFileString(join(dir, name)).pipe(Effect.orElseSucceed(() => ""))
        if (Option.exists(decodeId(text), (s) => s.batch_id === id)) {
          const report = join(dir, name.replace(/\.summary\.json$/, ".report.html"))
          return Option.some({ summary: join(dir, name), report: (yield* fs.exists(report).pipe(Effect.orElseSucceed(() => false))) ? Option.some(report) : Option.none<string>() })
        }
      }
    }
    return Option.none<{ readonly summary: string; readonly report: Option.Option<string> }>()
  })

/** The batch's output files, when the console's job folder holds them. */
export const outputsOf = (id: string) =>
  Effect.flatMap(ConsoleSettings, (settings) => Option.match(settings.jobs, { onNone: () => Effect.succeed(Option.none()), onSome: (folder) => filesOf(folder, id) }))

/** The links of a batch's page to its summary and report, or why there are none. */
export const outputLinks = (id: string) =>
  Effect.map(outputsOf(id), (found) =>
    Option.match(found, {
      onNone: () => "<p>Its summary and report are beside the file it was run from (this console's job folder does not hold them).</p>",
      onSome: (files) =>
        `<p>As its run wrote them: <a href="/batches/${id}/summary">summary (JSON)</a>${Option.isSome(files.report) ? ` · <a href="/batches/${id}/report">report</a>` : ""}</p>`
    }))

const serve = (which: "summary" | "report") =>
  Effect.gen(function* () {
    const { id } = yield* HttpRouter.schemaPathParams(Params)
    const found = yield* outputsOf(id)
    const path = Option.flatMap(found, (files) => (which === "summary" ? Option.some(files.summary) : files.report))
    if (Option.isNone(path)) return HttpServerResponse.text(`No ${which} of batch ${id} in this console's job folder.`, { status: 404 })
    const text = yield* (yield* FileSystem.FileSystem).readFileString(path.value)
    return which === "summary"
      ? HttpServerResponse.text(text, { contentType: "application/json; charset=utf-8" })
      // The report is one self-contained page with its own style: allowed that, and nothing else.
      : HttpServerResponse.text(text, { contentType: "text/html; charset=utf-8", headers: { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:" } })
  })

export const batchFileRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/batches/:id/summary", serve("summary")),
  HttpRouter.get("/batches/:id/report", serve("report"))
)
