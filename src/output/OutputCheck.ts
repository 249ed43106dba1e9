/**
 * Before the first payout (issue 12, item 5): the folder the ledger, summary and report go to, and
 * the state store's folder, can be written and have room. Finding out after 200 payouts were sent
 * leaves a finance team without a ledger; finding out before costs one small file.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"
import { statfs } from "node:fs/promises"
import { dirname, join } from "node:path"
import { randomBytes } from "node:crypto"

/** Bytes a batch's outputs take per row (ledger, summary, HTML report), with room to spare. */
export const OUTPUT_BYTES_PER_ROW = 1_024
/** Bytes a row takes in the state store (row, events, WAL growth before a checkpoint). */
export const STORE_BYTES_PER_ROW = 4_096
const BASE_BYTES = 256 * 1_024

const free = (dir: string) =>
  Effect.tryPromise(() => statfs(dir)).pipe(
    Effect.map((s) => Option.some(Number(s.bavail) * Number(s.bsize))),
    // A file system that cannot tell (rare) is not refused for it: the probe write still ran.
    Effect.orElseSucceed(() => Option.none<number>())
  )

const mib = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`

/** Why `dir` cannot take `bytes` more, if it cannot: missing, not a folder, not writable, too full. */
export const whyNotWritable = (dir: string, bytes: number, what: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(dir).pipe(Effect.option)
    if (Option.isNone(info)) return Option.some(`${what} ${dir} does not exist`)
    if (info.value.type !== "Directory") return Option.some(`${what} ${dir} is not a folder`)
    const probe = join(dir, `.payouts-probe-${randomBytes(4).toString("hex")}`)
    const wrote = yield* fs.writeFile(probe, new Uint8Array(4_096), { mode: 0o600 }).pipe(
      Effect.zipRight(fs.remove(probe)),
      Effect.either
    )
    if (wrote._tag === "Left") {
      yield* fs.remove(probe).pipe(Effect.ignore)
      return Option.some(`${what} ${dir} cannot be written: ${wrote.left.message}`)
    }
    const room = yield* free(dir)
    if (Option.isSome(room) && room.value < bytes) {
      return Option.some(`${what} ${dir} has ${mib(room.value)} free; this batch needs about ${mib(bytes)}`)
    }
    return Option.none<string>()
  })

/** Every reason the run's outputs or store could not be written; empty when both can. */
export const checkWritable = (input: { readonly outDir: string; readonly statePath?: string | undefined; readonly rows: number }) =>
  Effect.gen(function* () {
    const problems: Array<string> = []
    const out = yield* whyNotWritable(input.outDir, BASE_BYTES + input.rows * OUTPUT_BYTES_PER_ROW, "the output folder")
    if (Option.isSome(out)) problems.push(out.value)
    if (input.statePath !== undefined && input.statePath !== ":memory:" && !input.statePath.startsWith("postgres")) {
      const store = yield* whyNotWritable(dirname(input.statePath), BASE_BYTES + input.rows * STORE_BYTES_PER_ROW, "the state store's folder")
      if (Option.isSome(store)) problems.push(store.value)
    }
    return problems
  })
