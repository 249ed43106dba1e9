/**
 * Taking complete files into `processing/`, each with how it was when taken (TakenFile.ts): the
 * watcher's scan, and `watch --once` while the service is out of reach (claimReady).
 */
import { Effect, Option } from "effect"
import { makeArrivals } from "./Arrivals.ts"
import { claim, ensureFolders, type JobFolder } from "./JobFolder.ts"
import { renamedWhy } from "./Renames.ts"
import { type Fingerprint, recordTaken } from "./TakenFile.ts"
import { tellWatch, WatchEvent } from "./WatchEvents.ts"

/**
 * Claims a ready file, keeping beside it in processing/ how it was when taken (its job looks again);
 * `why` when it could not keep its name there.
 */
export const take = (folder: JobFolder, name: string, print: Fingerprint | undefined) =>
  Effect.gen(function* () {
    const target = yield* claim(folder, name)
    if (Option.isNone(target)) return Option.none<{ readonly path: string; readonly why: string | undefined }>()
    if (print !== undefined) yield* recordTaken(target.value, print)
    const why = yield* renamedWhy(name, target.value)
    yield* tellWatch(WatchEvent.Claimed({ name, path: target.value, why }))
    return Option.some({ path: target.value, why })
  })

/** Takes the complete files waiting in the folder into processing/ without running them; how many. */
export const claimReady = (folder: JobFolder, settleMs: number) =>
  Effect.gen(function* () {
    yield* ensureFolders(folder)
    const arrivals = yield* makeArrivals(settleMs)
    let claimed = 0
    const { ready, prints } = yield* arrivals.ready(folder.root)
    for (const name of ready) {
      const target = yield* take(folder, name, prints.get(name))
      if (Option.isNone(target)) continue
      claimed += 1
    }
    return claimed
  })
