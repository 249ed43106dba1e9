/** Remembered column names give what `String.snakeToCamel` gives, the first time and every time after. */
import { describe, expect, it } from "@effect/vitest"
import { String as Str } from "effect"
import * as fc from "fast-check"
import { fieldNames } from "../../src/store/ColumnNames.ts"

describe("fieldNames", () => {
  it("renames as snakeToCamel does, whether remembered or not", () => {
    const fieldName = fieldNames()
    const column = fc.stringMatching(/^[a-z][a-z0-9_]{0,24}[a-z0-9]$/).filter((name) => !name.includes("__"))
    fc.assert(
      fc.property(fc.array(column, { maxLength: 40 }), (columns) => {
        for (const name of [...columns, ...columns]) expect(fieldName(name)).toBe(Str.snakeToCamel(name))
      }),
      { numRuns: 200, seed: 20261124 }
    )
    expect(["account_id", "intent_owner", "details", "fee_minor"].map(fieldName)).toEqual(["accountId", "intentOwner", "details", "feeMinor"])
  })
})
