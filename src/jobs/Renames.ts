/**
 * A batch filed under another name than it was dropped under (a folder held an earlier batch of that
 * name: JobFolder.ts `stemIn`) says so: in the log, and in its summary (`renamed`: `dropped_as`,
 * `filed_as`, `why`), so that a person looking for `week49.csv` finds both and knows which is which.
 */
import { FileSystem } from "@effect/platform"
import { Effect, HashMap, Option, Ref, Schema } from "effect"
import { existsSync } from "node:fs"
import { basename, join } from "node:path"
import { amendSummary } from "../output/SummaryFile.ts"
import { outputOf, stemOf } from "../output/AtomicFile.ts"
import { tellWatch, WatchEvent } from "./WatchEvents.ts"

const decodeBatchOf = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ batch_id: Schema.String })))

/**
 * Why the batch file `name` is now `path`: the folder held an earlier batch file of that name (its
 * batch named when its summary or approval says it). Undefined when it kept its name.
 */
export const renamedWhy = (name: string, path: string) =>
  Effect.gen(function* () {
    if (stemOf(name) === stemOf(path)) return undefined
    const dir = join(path, "..")
    const earlier = join(dir, `${stemOf(name)}.csv`)
    const fs = yield* FileSystem.FileSystem
    const ids = yield* Effect.forEach([".summary.json", ".approval.json"] as const, (suffix) =>
      fs.readFileString(outputOf(earlier, suffix)).pipe(
        Effect.map((text) => Option.getOrUndefined(Option.map(decodeBatchOf(text), (found) => found.batch_id))),
        Effect.orElseSucceed(() => undefined)
      )
    )
    const id = ids.find((i) => i !== undefined)
    return `${basename(dir)}/ already holds ${stemOf(name)}.csv${id === undefined ? "" : ` of batch ${id.slice(0, 12)}`} from an earlier drop, kept as it is; this one is ${basename(path)}`
  })

interface Claimed {
  readonly droppedAs: string
  readonly why: string
}

/** What the watcher remembers of the files it claimed under another name, until their job ends. */
export const makeRenames = Effect.gen(function* () {
  const claimedAs = yield* Ref.make(HashMap.empty<string, Claimed>())
  return {
    /** `path` in processing/ was dropped as `droppedAs` and could not keep that name, for `why`. */
    claimed: (path: string, droppedAs: string, why: string) => Ref.update(claimedAs, HashMap.set(path, { droppedAs, why })),
    /** The job of `csv` (in processing/) ended with its file at `file`: said if its name changed on the way. */
    tellRenamed: (csv: string, file: string) =>
      Effect.gen(function* () {
        const claimed = Option.getOrUndefined(yield* Ref.modify(claimedAs, (map) => [HashMap.get(map, csv), HashMap.remove(map, csv)]))
        const moved = yield* renamedWhy(basename(csv), file)
        const why = [claimed?.why, moved].filter((w): w is string => w !== undefined)
        if (why.length === 0) return
        const droppedAs = claimed?.droppedAs ?? basename(csv)
        yield* tellWatch(WatchEvent.Renamed({ droppedAs, file, why }))
        const summary = outputOf(file, ".summary.json")
        if (existsSync(summary)) yield* amendSummary(summary, { renamed: { dropped_as: droppedAs, filed_as: basename(file), why } })
      }).pipe(Effect.catchAll((e) => tellWatch(WatchEvent.RenameUnnoted({ file, error: String(e) }))))
  }
})
