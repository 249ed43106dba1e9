import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  cardOperator,
  COUNTRIES,
  isPayoutCurrency,
  MOBILE_OPERATOR_CODES,
  MOBILE_OPERATORS,
  mobileOperator
} from "../../src/domain/Operators.ts"
import { canMove, isFinal, OUTCOME_STATES, stateOfStatus } from "../../src/store/RowState.ts"

// The service's statuses move by the row-state graph (store/RowState.ts), mapped with stateOfStatus.
const TERMINAL_STATUSES = OUTCOME_STATES
const NON_TERMINAL_STATUSES = ["pending", "processing"]
const isTerminal = (status: string) => isFinal(stateOfStatus(status))
const isForward = (from: string, to: string) => canMove(stateOfStatus(from), stateOfStatus(to))

describe("Operators", () => {
  it("has the spec's 12 mobile operators, each paying in its country's currency", () => {
    expect(MOBILE_OPERATOR_CODES).toHaveLength(12)
    expect(new Set(MOBILE_OPERATOR_CODES).size).toBe(12)
    for (const op of MOBILE_OPERATORS) {
      expect(op.code.endsWith(`_${op.country.toLowerCase()}`)).toBe(true)
      expect(op.currency).toBe(op.country === "CM" ? "XAF" : "XOF")
    }
    expect(new Set(MOBILE_OPERATORS.map((o) => o.country))).toEqual(new Set(COUNTRIES))
  })

  it("finds operators by exact code only", () => {
    expect(mobileOperator("carrier7_tg")).toEqual({ code: "carrier7_tg", country: "TG", currency: "XOF" })
    expect(mobileOperator("CARRIER7_TG")).toBeUndefined()
    expect(mobileOperator("carrier7_sn")).toBeUndefined()
    expect(mobileOperator("toString")).toBeUndefined()
    expect(mobileOperator("cardnet1")).toBeUndefined()
    expect(cardOperator("cardnet1")?.currencies).toEqual(["USD", "EUR"])
  })

  it("pays out in XAF and XOF only", () => {
    expect(["XAF", "XOF", "NGN", "GHS", "USD", "xaf"].map(isPayoutCurrency)).toEqual([true, true, false, false, false, false])
  })
})

describe("Status", () => {
  const ALL = [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES]

  it("knows the terminal statuses", () => {
    expect(TERMINAL_STATUSES.every(isTerminal)).toBe(true)
    expect(NON_TERMINAL_STATUSES.some(isTerminal)).toBe(false)
    expect(isTerminal("success")).toBe(false)
    expect(isTerminal("constructor")).toBe(false)
  })

  it("moves forward only", () => {
    expect(isForward("pending", "processing")).toBe(true)
    expect(isForward("pending", "completed")).toBe(true)
    expect(isForward("processing", "failed")).toBe(true)
    expect(isForward("pending", "expired")).toBe(true)
    expect(isForward("completed", "refunded")).toBe(true)
    expect(isForward("pending", "refunded")).toBe(true)
    expect(isForward("processing", "pending")).toBe(false)
    expect(isForward("completed", "failed")).toBe(false)
    expect(isForward("failed", "refunded")).toBe(false)
    expect(isForward("cancelled", "refunded")).toBe(false)
    expect(isForward("expired", "refunded")).toBe(false)
    expect(isForward("refunded", "completed")).toBe(false)
    expect(isForward("pending", "bogus")).toBe(false)
  })

  it("never leaves a terminal status except completed -> refunded, never loops", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL), fc.constantFrom(...ALL), (from, to) => {
        if (isForward(from, to) && isTerminal(from)) expect([from, to]).toEqual(["completed", "refunded"])
        if (isForward(from, to)) expect(isForward(to, from)).toBe(false)
        expect(isForward(from, from)).toBe(false)
      })
    )
  })
})
