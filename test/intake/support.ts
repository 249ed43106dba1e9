import { NodeFileSystem } from "@effect/platform-node"
import type { Either } from "effect"
import { Chunk, Effect, Stream } from "effect"
import { fileURLToPath } from "node:url"

export const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))

export const collect = <A, E, R>(stream: Stream.Stream<A, E, R>): Effect.Effect<Either.Either<Array<A>, E>, never, R> =>
  Stream.runCollect(stream).pipe(Effect.map(Chunk.toArray), Effect.either)

export const FileSystemLive = NodeFileSystem.layer

export const HEADER = "id,amount,currency,operator,phone,name,email"
