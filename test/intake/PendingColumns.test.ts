import { describe, expect, it } from "vitest"
import { PendingColumns } from "../../src/intake/PendingColumns.ts"

describe("PendingColumns", () => {
  it("gives back every row pushed, in order, across its blocks", () => {
    const pending = new PendingColumns()
    const pushed = Array.from({ length: 20_001 }, (_, i) => ({ idx: i * 3, currency: i % 7 === 0 ? "XOF" : "XAF", amountMinor: 1_000_000_000_000 + i }))
    for (const row of pushed) pending.push(row.idx, row.currency, row.amountMinor)
    expect(pending.length).toBe(pushed.length)
    expect([...pending.rows()]).toEqual(pushed)
    expect([...new PendingColumns().rows()]).toEqual([])
  })
})
