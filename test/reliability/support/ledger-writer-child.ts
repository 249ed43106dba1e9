/**
 * Child of file-drop.test.ts: rewrites one ledger-sized file forever with the real atomic writer,
 * each version made of `rows` lines of its generation number and an `end` line; prints each
 * generation once renamed in place. The parent SIGKILLs it at random moments.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Stream } from "effect"
import { writeFileAtomic } from "../../../src/output/AtomicFile.ts"

const [path, rowsText] = process.argv.slice(2)
const rows = Number(rowsText)

const version = (gen: number) =>
  Stream.make("gen,line,phone,name,status,reference\n").pipe(
    Stream.concat(Stream.map(Stream.range(0, rows - 1), (i) => `${gen},${i},+237677510001,Seller ${i},completed,TXN${String(i).padStart(10, "0")}\n`)),
    Stream.concat(Stream.make(`end,${gen}\n`))
  )

const loop = (gen: number): Effect.Effect<void, unknown, never> =>
  writeFileAtomic(path, version(gen)).pipe(
    Effect.zipRight(Effect.sync(() => process.stdout.write(`${gen}\n`))),
    Effect.provide(NodeContext.layer),
    Effect.flatMap(() => loop(gen + 1))
  )

Effect.runPromise(loop(1)).catch((e) => {
  process.stderr.write(String(e))
  process.exit(1)
})
