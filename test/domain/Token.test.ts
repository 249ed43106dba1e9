/**
 * Row tokens (issue 11, DESIGN 7): the same rows give the same tokens whatever the file's bytes
 * (CRLF, a BOM, re-quoted cells), through the real intake into a real store; distinct rows give
 * distinct tokens; repeated identical rows without ids are told apart by their occurrence.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Layer, Stream } from "effect"
import fc from "fast-check"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { intake } from "../../src/intake/Intake.ts"
import { mintToken, TOKEN_PATTERN } from "../../src/domain/Token.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { StateStore, withHandles } from "../kit/Store.ts"
import { ordinaryPhone } from "../run/support.ts"
import { tempDir } from "../kit/TempDir.ts"
import { AccountId } from "../../src/domain/Ids.ts"

const ACCOUNT = "acct0000000000aa"

interface Line {
  readonly id: string | undefined
  readonly amount: number
  readonly phone: number
}

// Rows of one phone are one recipient's (one phone, one recipient: another name would be refused).
const cells = (l: Line, i: number) => [l.id ?? "", String(l.amount), "XAF", "carrier1_cm", ordinaryPhone(l.phone), `Seller ${l.phone}`, `s${i}@example.com`]

/** The same table written as a spreadsheet might re-save it. */
const render = (lines: ReadonlyArray<Line>, style: { crlf: boolean; bom: boolean; quoted: boolean }) => {
  const q = (c: string) => (style.quoted ? `"${c.replaceAll('"', '""')}"` : c)
  const rows = [["id", "amount", "currency", "operator", "phone", "name", "email"], ...lines.map(cells)].map((r) => r.map(q).join(","))
  return (style.bom ? "\uFEFF" : "") + rows.join(style.crlf ? "\r\n" : "\n") + (style.crlf ? "\r\n" : "\n")
}

/** The tokens the intake gives the file's rows, in a store of its own (as another store would). */
const tokensOf = (dir: string, name: string, text: string) =>
  Effect.gen(function* () {
    const file = join(dir, name)
    writeFileSync(file, text)
    const loaded = yield* intake({ accountId: AccountId.make(ACCOUNT), file, skipInvalid: false, allowRepeats: true, repeatWindow: Duration.hours(24), options: {} })
    if (loaded._tag !== "Loaded") return yield* Effect.die(new Error(`intake refused ${name}: ${JSON.stringify(loaded)}`))
    const store = yield* StateStore
    return Chunk.toReadonlyArray(yield* Stream.runCollect(store.batch(AccountId.make(ACCOUNT), loaded.batch.batchId).streamRows())).map((r) => r.token)
  }).pipe(Effect.provide(Layer.merge(withHandles(SqliteStateStore.layer({ filename: join(dir, `${name}.db`) })), NodeContext.layer)))

const line = fc.record({
  id: fc.option(fc.stringMatching(/^[A-Z]{2}-[0-9]{1,6}$/), { nil: undefined }),
  amount: fc.integer({ min: 100, max: 105 }),
  phone: fc.integer({ min: 0, max: 3 })
})

describe("row tokens", () => {
  it.live("are stable under re-saving (CRLF, BOM, quotes) and distinct across rows", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(line, { minLength: 1, maxLength: 12, selector: (l) => l.id ?? `${Math.random()}` }),
          fc.record({ crlf: fc.boolean(), bom: fc.boolean(), quoted: fc.boolean() }),
          async (lines, style) => {
            const dir = tempDir("payouts-token-")
            const program = Effect.gen(function* () {
              const plain = yield* tokensOf(dir, "plain.csv", render(lines, { crlf: false, bom: false, quoted: false }))
              const resaved = yield* tokensOf(dir, "resaved.csv", render(lines, style))
              expect(resaved).toEqual(plain)
              expect(new Set(plain).size).toBe(plain.length)
              for (const t of plain) expect(t).toMatch(TOKEN_PATTERN)
            })
            await Effect.runPromise(program)
          }
        ),
        { numRuns: 25 }
      )
    ), 120_000)

  it("depend on the account and on the id or the content's occurrence, never on the key or the file", () => {
    const a = mintToken(ACCOUNT, { _tag: "Id", id: "S-1", generation: 0 })
    expect(mintToken(ACCOUNT, { _tag: "Id", id: " S-1 ", generation: 0 })).toBe(a)
    expect(mintToken("acct0000000000bb", { _tag: "Id", id: "S-1", generation: 0 })).not.toBe(a)
    expect(mintToken(ACCOUNT, { _tag: "Id", id: "S-1", generation: 1 })).not.toBe(a)
    const content = { _tag: "Content", phone: "+237677510000", amountMinor: 1000, currency: "XAF", operator: "carrier1_cm" } as const
    expect(mintToken(ACCOUNT, { ...content, occurrence: 0 })).not.toBe(mintToken(ACCOUNT, { ...content, occurrence: 1 }))
    expect(mintToken(ACCOUNT, { ...content, occurrence: 0 })).toBe(mintToken(ACCOUNT, { ...content, currency: "xaf", occurrence: 0 }))
  })

  it("take the `payouts retry` generation, with or without an id; generation 0 keeps the tokens runs already sent", () => {
    const content = { _tag: "Content", phone: "+237677510000", amountMinor: 1000, currency: "XAF", operator: "carrier1_cm", occurrence: 0 } as const
    const byContent = [0, 1, 2].map((generation) => mintToken(ACCOUNT, { ...content, generation }))
    expect(new Set(byContent).size).toBe(3)
    expect(byContent[0]).toBe(mintToken(ACCOUNT, content))
    const byId = [0, 1, 2].map((generation) => mintToken(ACCOUNT, { _tag: "Id", id: "S-2", generation }))
    expect(new Set(byId).size).toBe(3)
    for (const token of [...byContent, ...byId]) expect(token).toMatch(TOKEN_PATTERN)
  })
})
