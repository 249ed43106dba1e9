/**
 * A job's hold on its file between the claim and the end of its run: the store's batches as the run
 * sees them (the batch created only if it is the file as taken, and the file on disk looked at again once its
 * rows are read, before the store's write completes), and a look after each run.
 */
import { FileSystem } from "@effect/platform"
import { Data, Effect, Option, Predicate, Ref, Schedule, Stream } from "effect"
import { type NewBatch, type RowInput, StoreError } from "../store/Model.ts"
import { Batches } from "../store/Sql/Batches.ts"
import { changedSince, changedWhileRead, type Fingerprint, sizeChangeOf } from "./TakenFile.ts"

/** The file is no longer what the watcher took: the job goes to `attention/`. */
export class FileChangedAfterTaken extends Data.TaggedError("FileChangedAfterTaken")<{ readonly change: string }> {}

const isStream = <A, E, R>(rows: Iterable<A> | Stream.Stream<A, E, R>): rows is Stream.Stream<A, E, R> =>
  Predicate.hasProperty(rows, Stream.StreamTypeId)

export const guardFile = (csv: string, taken: Fingerprint) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const fs = yield* FileSystem.FileSystem
    const changed = yield* Ref.make(Option.none<string>())
    const note = (change: string) => Ref.update(changed, Option.orElse(() => Option.some(change)))
    const look: Effect.Effect<Option.Option<string>> = changedSince(csv, taken).pipe(
      Effect.tap(Option.match({ onNone: () => Effect.void, onSome: note })),
      Effect.provideService(FileSystem.FileSystem, fs)
    )
    const refuse = (change: string) =>
      Effect.zipRight(note(change), Effect.fail(new StoreError({ reason: "Conflict", message: changedWhileRead(change) })))
    const createBatch: Batches["createBatch"] = <E, R>(batch: NewBatch, rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>) => {
      // The run read other bytes than were taken: the file changed between the claim and the read, so
      // the change is said as the file shows it now (grew, shrank, replaced), the batch ids as a last resort.
      if (batch.batchId !== taken.batchId) {
        return Effect.flatMap(look, (change) =>
          refuse(Option.getOrElse(change, () => `the run read batch ${batch.batchId}, not the file taken (batch ${taken.batchId})`)))
      }
      const source: Stream.Stream<RowInput, E, R> = isStream(rows) ? rows : Stream.fromIterable(rows)
      // After the last row, before the store's write completes: the file is still the one taken.
      const after = Stream.drain(Stream.fromEffect(Effect.flatMap(look, Option.match({ onNone: () => Effect.void, onSome: refuse }))))
      return batches.createBatch(batch, Stream.concat(source, after))
    }
    return {
      batches: Batches.make({ ...batches, createBatch }),
      /** Fails with FileChangedAfterTaken if the file on disk is no longer the one taken. */
      check: Effect.flatMap(look, Option.match({ onNone: () => Effect.void, onSome: (change) => Effect.fail(new FileChangedAfterTaken({ change })) })),
      /** The first change seen, by a check or by the store's guard. */
      changed: Ref.get(changed)
    } as const
  })

/** How often a run's file is looked at while it pays: a stat, no read. */
const WATCH_EVERY = "500 millis"

/**
 * While a run pays, its file's size and mtime are looked at every half second: a copy that stalled
 * past the settle time and goes on, or a save over it, pauses the run (no new payout; what was sent
 * is followed) and the job sends the file to `attention/` once the run ends. The hold is the reason.
 */
export const watchDuringRun = (csv: string, taken: Fingerprint) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const reason = yield* Ref.make<string | undefined>(undefined)
    const look = fs.stat(csv).pipe(
      Effect.map((info) => {
        const size = Number(info.size)
        const mtimeMs = Option.match(info.mtime, { onNone: () => 0, onSome: (d) => d.getTime() })
        return sizeChangeOf(taken.size, size) ??
          (mtimeMs === taken.mtimeMs ? undefined : "it was written to after it was taken (its modification time changed)")
      }),
      Effect.orElseSucceed(() => "it can no longer be read"),
      Effect.flatMap((change) =>
        change === undefined ? Effect.succeed(false) : Effect.as(Ref.set(reason, changedWhileRead(change)), true)
      )
    )
    // Once changed, it stays changed: the look stops.
    yield* look.pipe(Effect.repeat({ schedule: Schedule.spaced(WATCH_EVERY), until: (changed) => changed }), Effect.forkScoped)
    return Ref.get(reason)
  })
