/**
 * The store's quick row check (src/store/RowDecode.ts) against `Row`'s schema, on hostile column
 * values: whenever the quick check answers, the schema decodes the same row to the same values, and
 * a row the schema accepts in the usual shapes is answered quickly (so the quick path is really used).
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Either, Schema } from "effect"
import * as fc from "fast-check"
import { Row } from "../../src/store/Model.ts"
import { quickRow, quickRows } from "../../src/store/RowDecode.ts"
import { ROW_STATES } from "../../src/store/RowState.ts"

const decodeBySchema = Schema.decodeUnknownEither(Row)

/** DateTimes as epoch milliseconds, so two decodes compare by value. */
const plain = (row: Row) =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, DateTime.isDateTime(value) ? DateTime.toEpochMillis(value) : value]))

const anything = fc.oneof(
  fc.constantFrom(null, undefined, true, "", "x", 0, -0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -(2 ** 60), 8.64e15 + 1, {}, [], "null"),
  fc.string(),
  fc.double(),
  fc.integer()
)
const jsonText = fc.oneof(
  fc.dictionary(fc.string(), fc.string()).map((o) => JSON.stringify(o)),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null))).map((o) => JSON.stringify(o)),
  fc.constantFrom('{"__proto__":"x"}', '{"__proto__":{"a":"b"}}', '{"a":"b","__proto__":"c"}', "[]", '["a"]', "null", "1", '"s"', "{", "", '{"a":1}', '{"1":"a","b":"c"}'),
  fc.array(fc.oneof(fc.string(), fc.integer())).map((a) => JSON.stringify(a))
)
const or = <A>(valid: fc.Arbitrary<A>) => fc.oneof({ weight: 60, arbitrary: valid }, { weight: 1, arbitrary: anything }, { weight: 1, arbitrary: jsonText })
const text = or(fc.string())
const textOrNull = or(fc.option(fc.string(), { nil: null }))
const int = or(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }))
const intOrNull = or(fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: null }))
const millis = or(fc.integer({ min: -(8.64e15), max: 8.64e15 }))
const millisOrNull = or(fc.option(fc.integer({ min: 0, max: 2 ** 45 }), { nil: null }))

const rawRow = fc.record(
  {
    accountId: text,
    batchId: text,
    idx: int,
    line: int,
    rowId: textOrNull,
    token: text,
    repeatKey: textOrNull,
    operator: text,
    currency: text,
    amountMinor: intOrNull,
    phone: text,
    name: text,
    email: text,
    description: text,
    details: or(fc.dictionary(fc.string(), fc.string()).map((o) => JSON.stringify(o))),
    state: or(fc.constantFrom(...ROW_STATES)),
    reference: textOrNull,
    feeMinor: intOrNull,
    attempts: int,
    error: textOrNull,
    intentAt: millisOrNull,
    submittedAt: millisOrNull,
    updatedAt: millis,
    finalAt: millisOrNull,
    endedAt: millisOrNull,
    resends: int,
    alarm: textOrNull,
    candidates: or(fc.option(fc.array(fc.string()).map((a) => JSON.stringify(a)), { nil: null })),
    intentOwner: textOrNull,
    extra: anything
  }
).chain((row) =>
  // A column may be missing: the schema refuses that, and so must the quick check.
  fc.option(fc.constantFrom(...Object.keys(row)), { freq: 10 }).map((missing) => {
    const columns: Record<string, unknown> = { ...row }
    if (missing !== null) delete columns[missing]
    return columns
  })
)

describe("quick row check", () => {
  it("answers only what the schema answers, and the same values", () => {
    let quick = 0
    fc.assert(
      fc.property(rawRow, (raw) => {
        const fast = quickRow(raw)
        const slow = decodeBySchema(raw)
        if (fast !== undefined) {
          quick++
          expect(Either.isRight(slow)).toBe(true)
          if (Either.isRight(slow)) expect(plain(fast)).toEqual(plain(slow.right))
        }
      }),
      { numRuns: 4_000, seed: 20261124 }
    )
    // Every column is valid 60 times in 62: about a row in six passes whole.
    expect(quick).toBeGreaterThan(10)
  })

  it("answers every row of the usual shapes, as the schema decodes it", () => {
    const usual = fc.record({
      accountId: fc.string(),
      batchId: fc.string(),
      idx: fc.nat(),
      line: fc.nat(),
      rowId: fc.option(fc.string(), { nil: null }),
      token: fc.string({ maxLength: 16 }),
      repeatKey: fc.option(fc.string(), { nil: null }),
      operator: fc.string(),
      currency: fc.constantFrom("XAF", "XOF", "GNF"),
      amountMinor: fc.option(fc.nat(), { nil: null }),
      phone: fc.string(),
      name: fc.string(),
      email: fc.string(),
      description: fc.string(),
      details: fc.dictionary(fc.string().filter((k) => k !== "__proto__"), fc.string()).map((o) => JSON.stringify(o)),
      state: fc.constantFrom(...ROW_STATES),
      reference: fc.option(fc.string(), { nil: null }),
      feeMinor: fc.option(fc.nat(), { nil: null }),
      attempts: fc.nat(),
      error: fc.option(fc.string(), { nil: null }),
      intentAt: fc.option(fc.nat(), { nil: null }),
      submittedAt: fc.option(fc.nat(), { nil: null }),
      updatedAt: fc.nat(),
      finalAt: fc.option(fc.nat(), { nil: null }),
      endedAt: fc.option(fc.nat(), { nil: null }),
      resends: fc.nat({ max: 1 }),
      alarm: fc.option(fc.string(), { nil: null }),
      candidates: fc.option(fc.array(fc.string()).map((a) => JSON.stringify(a)), { nil: null }),
      intentOwner: fc.option(fc.string(), { nil: null })
    })
    fc.assert(
      fc.property(fc.array(usual, { maxLength: 5 }), (raws) => {
        const fast = quickRows(raws)
        expect(fast).toBeDefined()
        const slow = Schema.decodeUnknownSync(Schema.Array(Row))(raws)
        expect(fast?.map(plain)).toEqual(slow.map(plain))
      }),
      { numRuns: 500, seed: 20261124 }
    )
  })

  it("leaves to the schema a whole read with one doubtful row", () => {
    const good = { accountId: "a", batchId: "b", idx: 0, line: 2, rowId: null, token: "t", repeatKey: null, operator: "o", currency: "XAF", amountMinor: 100, phone: "+237", name: "n", email: "e", description: "d", details: "{}", state: "validated", reference: null, feeMinor: null, attempts: 0, error: null, intentAt: null, submittedAt: null, updatedAt: 1, finalAt: null, endedAt: null, resends: 0, alarm: null, candidates: null, intentOwner: null }
    expect(quickRows([good, good])).toHaveLength(2)
    expect(quickRows([good, { ...good, amountMinor: 1.5 }])).toBeUndefined()
    expect(quickRows([good, { ...good, state: "paid" }])).toBeUndefined()
    expect(quickRows([good, { ...good, details: '{"a":1}' }])).toBeUndefined()
    expect(quickRows([good, { ...good, updatedAt: null }])).toBeUndefined()
    // JSON.parse keeps a "__proto__" key as the object's own; the schema's record drops it.
    const proto = { ...good, details: '{"a":"b","__proto__":"c"}' }
    expect(quickRows([good, proto])).toBeUndefined()
    expect(Object.keys(Schema.decodeUnknownSync(Row)(proto).details)).toEqual(["a"])
  })
})
