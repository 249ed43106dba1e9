/**
 * The transitions' read of the rows' current state is checked in plain code before its schema
 * (src/store/Sqlite/Transitions.ts): on hostile column values it decodes what the schema decodes,
 * and dies where the schema refuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import { CurrentWithIdx, decodeCurrentWithIdx } from "../../src/store/Sqlite/Transitions.ts"
import { ROW_STATES } from "../../src/store/RowState.ts"

const bySchema = (rows: unknown) => Effect.runSyncExit(Schema.decodeUnknown(Schema.Array(CurrentWithIdx))(rows))
const hostile = fc.constantFrom(undefined, true, "", "1", 1.5, -1, Number.NaN, {}, [], "validated ")
const or = <A>(valid: fc.Arbitrary<A>) => fc.oneof({ weight: 40, arbitrary: valid }, { weight: 1, arbitrary: hostile })
const nullOr = <A>(a: fc.Arbitrary<A>) => fc.option(a, { nil: null })
const row = fc.record({
  idx: or(fc.integer({ min: 0 })),
  state: or(fc.constantFrom(...ROW_STATES)),
  reference: or(nullOr(fc.string())),
  feeMinor: or(nullOr(fc.integer())),
  error: or(nullOr(fc.string())),
  attempts: or(fc.integer({ min: 0 })),
  intentAt: or(nullOr(fc.integer())),
  submittedAt: or(nullOr(fc.integer())),
  finalAt: or(nullOr(fc.integer()))
}).map((r) => ({ ...r })) // plain objects, as the driver returns

describe("the current state a group of transitions reads", () => {
  it("is decoded as its schema decodes it, or refused where the schema refuses", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 4 }), (rows) => {
        const quick = Effect.runSyncExit(decodeCurrentWithIdx(rows))
        const slow = bySchema(rows)
        expect(Exit.isSuccess(quick)).toBe(Exit.isSuccess(slow))
        if (Exit.isSuccess(quick) && Exit.isSuccess(slow)) expect(quick.value).toStrictEqual(slow.value)
      }),
      { numRuns: 2_000 }
    )
  })
})
