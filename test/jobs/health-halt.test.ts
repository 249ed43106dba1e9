import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { healthReport, makeHealth } from "../../src/jobs/Health.ts"

describe("watch --health and the account halt (issue 12, item 14)", () => {
  it.effect("a halt in force makes the status halted (503) and says who, when and why", () =>
    Effect.gen(function* () {
      const health = yield* makeHealth
      expect(healthReport(yield* Ref.get(health), 0, 60_000).status).toBe("ok")
      yield* Ref.update(health, (h) => ({ ...h, halt: { at: Date.UTC(2026, 10, 23), by: "ana", reason: "wrong file" } }))
      const report = healthReport(yield* Ref.get(health), 0, 60_000)
      expect(report.status).toBe("halted")
      expect(report.halted).toEqual({ by: "ana", at: "2026-11-23T00:00:00.000Z", reason: "wrong file" })
    })
  )
})
