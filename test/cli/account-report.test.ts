/** `payouts reconcile --account`'s text: counts with the reader's separators (issue 31 item 6). */
import { describe, expect, it } from "@effect/vitest"
import { formatFor } from "../../src/output/Format.ts"
import { describeAccountReport } from "../../src/cli/ReconcileText.ts"

describe("the account check as people read it", () => {
  it("gives the listing's counts with thousands separators, in the reader's locale", () => {
    const report = { from: "2026-11-01", to: "2026-11-27", payouts: 1234567, tokened: 12345, findings: [], ok: true }
    expect(describeAccountReport(report)).toContain("1,234,567 payouts listed, 12,345 carrying a token of ours")
    expect(describeAccountReport(report, formatFor("de-DE"))).toContain("1.234.567 payouts listed, 12.345 carrying")
  })
})
