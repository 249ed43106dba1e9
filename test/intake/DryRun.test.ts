import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { AccountId } from "../../src/domain/Ids.ts"
import { hasInvisible } from "../../src/domain/Text.ts"
import { dryRun, type DryRunInput } from "../../src/intake/DryRun.ts"
import { NO_GUARDS } from "../../src/intake/Guards.ts"
import { intake } from "../../src/intake/Intake.ts"
import { fileBatchId } from "../../src/intake/FileBatchId.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { tempDir } from "../kit/TempDir.ts"

const ACCOUNT = AccountId.make("acct-dry-run")
const HEADER = "id,amount,currency,operator,phone,name,email,description,meta.order"

/** Valid rows of five countries, and the ways a row goes wrong, spread over a file of `n` rows. */
const lineOf = (i: number): string => {
  const cm = `+23767${String(1_000_000 + i).slice(-7)}`
  switch (i % 23) {
    case 3: return `D-${i},1000,XAF,carrier1_cm,12345,Bad Phone,bad${i}@example.com,,`
    case 5: return `D-${i},10.5,XAF,carrier1_cm,${cm},Bad Amount,a${i}@example.com,,`
    case 7: return `D-${i - 7},2000,XAF,carrier1_cm,${cm},Dup Id,d${i}@example.com,,` // the id of row i - 7
    case 9: return `,3000,XAF,carrier1_cm,+237677000001,No Id,n${i}@example.com,"a ""quoted"", multi\nline description",`
    case 11: return `P-${i},4000,XOF,carrier7_tg,90 ${String(100_000 + i).slice(-6)},"Name, With Comma",t${i}@example.com,,${i}`
    case 13: return `P-${i},5000,XAF,carrier1_cm,${cm},Too,Many,Fields,Here,x`
    case 15: return ""
    case 17: return `OLD-${i % 5},6000,XAF,carrier1_cm,${cm},Used Before,o${i}@example.com,,` // ids of the first batch
    default: return `P-${i},${500 + i},XAF,carrier1_cm,${cm},Seller ${i},s${i}@example.com,Settlement ${i},${i % 97}`
  }
}

const StoreLive = (dir: string) => Layer.mergeAll(SqliteStateStore.layer({ filename: join(dir, "state.db") }), NodeContext.layer)

/** A file checked by `payouts validate` and loaded by `payouts run`'s intake, with a store holding an earlier batch. */
const both = (text: string | Uint8Array, options: { skipInvalid: boolean; allowRepeats?: boolean }) =>
  Effect.gen(function* () {
    const dir = tempDir()
    const earlier = join(dir, "earlier.csv")
    writeFileSync(earlier, `${HEADER}\n${Array.from({ length: 5 }, (_, i) => `OLD-${i},6000,XAF,carrier1_cm,+23767900000${i + 5},Old ${i},old${i}@example.com,,`).join("\n")}\n`)
    const file = join(dir, "batch.csv")
    writeFileSync(file, text)
    return yield* Effect.gen(function* () {
      const loaded = yield* intake({ accountId: ACCOUNT, file: earlier, skipInvalid: false, allowRepeats: false, repeatWindow: Duration.hours(24) })
      expect(loaded._tag).toBe("Loaded")
      const input: DryRunInput = {
        accountId: ACCOUNT,
        batchId: yield* fileBatchId(file),
        allowRepeats: options.allowRepeats ?? false,
        since: DateTime.subtractDuration(yield* DateTime.now, Duration.hours(24)),
        guards: NO_GUARDS,
        file,
        fileName: "batch.csv",
        skipInvalid: options.skipInvalid
      }
      const single = yield* dryRun(input)
      // `payouts run`'s intake of the same file (which loads it): its errors, to compare with the dry run's.
      const run = yield* intake({ accountId: ACCOUNT, file, skipInvalid: options.skipInvalid, allowRepeats: input.allowRepeats, repeatWindow: Duration.hours(24) })
      return { single, run }
    }).pipe(Effect.provide(StoreLive(dir)))
  })

describe("one identity for each id, spreadsheet residue (issue 30)", () => {
  /** Rows of `lineOf` with, far apart (other groups), the same ids written otherwise, an invisible character and error values. */
  const N = 1_200
  const tricky = (): string => {
    const rows = Array.from({ length: N }, (_, i) => lineOf(i))
    rows[40] = "S-1001,700,XAF,carrier1_cm,+237699000001,First,f1@example.com,,"
    rows[300] = "s-1001,700,XAF,carrier1_cm,+237699000002,Lower,f2@example.com,,"
    rows[500] = "S\uFF0D1001,700,XAF,carrier1_cm,+237699000003,Wide,f3@example.com,,"
    rows[700] = "\u0405-1001,700,XAF,carrier1_cm,+237699000004,Cyrillic,f4@example.com,,"
    rows[800] = "S-1002\u200B,700,XAF,carrier1_cm,+237699000005,Zero Width,f5@example.com,,"
    rows[850] = "S-1003\u0430,700,XAF,carrier1_cm,+237699000006,Mixed,f6@example.com,,"
    rows[900] = "S-1004,700,XAF,carrier1_cm,+237699000007,#REF!,f7@example.com,,"
    rows[950] = "S-1005,700,XAF,carrier1_cm,+237699000008,Meta Residue,f8@example.com,, #n/a "
    rows[17] = "old-2,700,XAF,carrier1_cm,+237699000009,Used Lower,f9@example.com,," // OLD-2 of the earlier batch
    return [HEADER, ...rows].join("\n") + "\n"
  }
  /** The line of row i: the header, the rows before it, and the second line of each multi-line row (i % 23 === 9) before it. */
  const lineOfRow = (i: number) => 2 + i + Array.from({ length: i }, (_, j) => j).filter((j) => j % 23 === 9).length

  it.live("refuses the same rows for the same reasons in payouts validate and in payouts run's intake", () =>
    Effect.gen(function* () {
      const text = tricky()
      const { run, single } = yield* both(text, { skipInvalid: true })
      expect(single._tag).toBe("Checked")
      const errors = single._tag === "Checked" ? single.errors : []
      expect(run?._tag === "Loaded" ? run.errors : []).toEqual(errors)
      const reasonOf = (row: number) => errors.filter((e) => e.line === lineOfRow(row)).map((e) => `${e.column}: ${e.reason}`)
      const first = lineOfRow(40)
      expect(reasonOf(300)).toEqual([`id: duplicate id "s-1001": first used on line ${first}`])
      expect(reasonOf(500)).toEqual([`id: duplicate id "S\uFF0D1001": first used on line ${first}`])
      expect(reasonOf(700)).toEqual([`id: duplicate id "\u0405-1001": first used on line ${first}`])
      expect(reasonOf(800)).toEqual([`id: id "S-1002<U+200B>" holds an invisible character U+200B at position 7: retype the id`])
      expect(reasonOf(850)).toEqual([
        `id: id "S-1003\u0430" mixes letters of two scripts (Latin and Cyrillic): U+0430 at position 7 is Cyrillic: retype the id`
      ])
      expect(reasonOf(900)).toEqual([`name: "#REF!" is a spreadsheet error value, not a value: fix the cell in the spreadsheet`])
      expect(reasonOf(950)).toEqual([`meta.order: "#n/a" is a spreadsheet error value, not a value: fix the cell in the spreadsheet`])
      expect(reasonOf(17)).toEqual([`id: id "old-2" was already used in earlier.csv line 4 (validated)`])
      // No message holds an invisible character itself.
      expect(errors.filter((e) => hasInvisible(e.reason))).toEqual([])
    }), 120_000)
})
