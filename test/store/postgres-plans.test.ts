/**
 * The PostgreSQL adapter's hot writes cost the same at the end of a large batch as at its start. Each
 * claim and each group of transitions of a run is captured as the adapter sends it, then run again
 * under EXPLAIN ANALYZE (rolled back): the rows its plan reads must stay near the rows it moves. Before
 * the claimable index and the writes by tuple id, a claim late in a 40,000-row batch read the ~39,000
 * rows already claimed (statistics taken when all were validated), and the transitions read the batch.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Statement from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { BatchId, Reference } from "../../src/domain/Ids.ts"
import { ACCOUNT, newBatch, rowInputs } from "./fixtures.ts"
import { adminClient, freshSchema, openPostgres, POSTGRES_ADAPTERS } from "./postgres.ts"

const B1 = BatchId.make("b1")
const ROWS = 40_000
const GROUP = 32

interface PlanNode {
  readonly "Node Type": string
  readonly "Actual Rows"?: number
  readonly "Actual Loops"?: number
  readonly "Rows Removed by Filter"?: number
  readonly "Rows Removed by Join Filter"?: number
  readonly "Rows Removed by Index Recheck"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

const SCANS = new Set(["Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan", "Tid Scan"])

/** Rows the plan's scans read: those they returned and those their filters dropped, over every loop. */
const rowsRead = (node: PlanNode): number => {
  const own = SCANS.has(node["Node Type"])
    ? ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) *
    (node["Actual Loops"] ?? 1)
    : (node["Rows Removed by Join Filter"] ?? 0)
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0)
}

class RolledBack {}

const Explained = Schema.Array(Schema.Struct({ "QUERY PLAN": Schema.Array(Schema.Struct({ Plan: Schema.Unknown })) }))

describe.skipIf(POSTGRES_ADAPTERS.length === 0)("PostgreSQL plans", () => {
  it.live(`a claim and its transitions late in a ${ROWS.toLocaleString("en")}-row batch read about the rows they move`, () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const { store, close } = yield* openPostgres(schema)
      yield* store.createBatch(newBatch("b1"), rowInputs(ROWS))
      const batch = store.batch(ACCOUNT, B1)
      yield* batch.claimRows({ limit: ROWS - 1_000 })

      const sent: Array<readonly [string, ReadonlyArray<unknown>]> = []
      const capture: Statement.Statement.Transformer = (self) =>
        Effect.sync(() => {
          const [text, params] = self.compile()
          if (/UPDATE rows|FOR UPDATE/.test(text)) sent.push([text, params])
          return self
        })
      const claimed = yield* batch.claimRows({ limit: GROUP }).pipe(Statement.withTransformer(capture))
      expect(claimed).toHaveLength(GROUP)
      yield* batch
        .recordTransitions(claimed.map((row) => ({ idx: row.idx, to: "submitted", reference: Reference.make(`r${row.idx}`), source: "response" })))
        .pipe(Statement.withTransformer(capture))
      yield* close
      // The claim, the transitions' locking read and their write.
      expect(sent).toHaveLength(3)

      const sql = yield* adminClient
      const reads = yield* Effect.forEach(sent, ([text, params]) => {
        let read = Number.NaN
        return sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SET LOCAL search_path TO ${sql(schema)}`
            const [explained] = yield* Effect.flatMap(
              sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params),
              Schema.decodeUnknown(Explained)
            )
            read = rowsRead(explained["QUERY PLAN"][0].Plan as PlanNode)
            // Rolled back: the statement ran for its plan only.
            return yield* Effect.fail(new RolledBack())
          })
        ).pipe(
          Effect.catchIf((e) => e instanceof RolledBack, () => Effect.void),
          Effect.orDie,
          Effect.map(() => read)
        )
      })
      for (const read of reads) expect(read).toBeLessThan(GROUP * 10)
    }).pipe(Effect.scoped), 120_000)
})
