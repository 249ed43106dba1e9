/** One phone, one recipient (issue 30 item 2): within a file, in `payouts validate`'s checks and in `payouts run`'s intake. */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { AccountId } from "../../src/domain/Ids.ts"
import { normaliseMobile } from "../../src/domain/Phone.ts"
import { dryRun, type DryRunInput } from "../../src/intake/DryRun.ts"
import { NO_GUARDS } from "../../src/intake/Guards.ts"
import { intake } from "../../src/intake/Intake.ts"
import { fileBatchId } from "../../src/intake/FileBatchId.ts"
import { foldName, SharedPhones } from "../../src/intake/SharedPhones.ts"
import * as SqliteStateStore from "../../src/store/SqliteStateStore.ts"
import { HEADER } from "./support.ts"
import { tempDir } from "../kit/TempDir.ts"

const ACCOUNT = AccountId.make("acct-shared-phone")
const N = 1_500
const phoneOf = (i: number) => `+23767${String(1_000_000 + i).slice(-7)}`

/** Ordinary rows, each its own phone and name, with the shared phones set far apart (other chunks). */
const fileText = (): string => {
  const rows = Array.from({ length: N }, (_, i) => `P-${i},${500 + i},XAF,carrier1_cm,${phoneOf(i)},Seller ${i},s${i}@example.com`)
  rows[10] = "P-10,1000,XAF,carrier1_cm,+237677000000,Amina Bello,a@example.com"
  rows[700] = "P-700,1000,XAF,carrier1_cm,677 00 00 00,  AMÍNA   bello ,a2@example.com" // the same person: case, accent, spaces
  rows[900] = "P-900,2000,XAF,carrier1_cm,+237 677 000 000,Jean Dupont,j@example.com"
  rows[1400] = "P-1400,3000,XAF,carrier1_cm,+237677000000,Jean Dupont,j2@example.com"
  rows[50] = `P-50,1000,XAF,carrier1_cm,${phoneOf(49)},Awa Diallo,w@example.com` // row 49's phone, another name
  return [HEADER, ...rows].join("\n") + "\n"
}

const StoreLive = (dir: string) => Layer.mergeAll(SqliteStateStore.layer({ filename: join(dir, "state.db") }), NodeContext.layer)

const checkAll = (text: string, allowSharedPhone: boolean) =>
  Effect.gen(function* () {
    const dir = tempDir()
    const file = join(dir, "batch.csv")
    writeFileSync(file, text)
    return yield* Effect.gen(function* () {
      const input: DryRunInput = {
        accountId: ACCOUNT,
        batchId: yield* fileBatchId(file),
        allowRepeats: false,
        allowSharedPhone,
        since: DateTime.subtractDuration(yield* DateTime.now, Duration.hours(24)),
        guards: NO_GUARDS,
        file,
        fileName: "batch.csv",
        skipInvalid: true
      }
      const single = yield* dryRun(input)
      const run = yield* intake({ accountId: ACCOUNT, file, skipInvalid: true, allowRepeats: false, allowSharedPhone, repeatWindow: Duration.hours(24) })
      return { single, run }
    }).pipe(Effect.provide(StoreLive(dir)))
  })

describe("one phone, one recipient within a file (issue 30)", () => {
  it("folds case, accents and spaces of names", () => {
    expect(foldName("  AMÍNA   bello ")).toBe(foldName("Amina Bello"))
    expect(foldName("Jean Dupont")).not.toBe(foldName("Amina Bello"))
  })

  it("remembers the first name of each phone, in any script", () => {
    const phones = new SharedPhones(false)
    expect(phones.check("+237677000001", "Ʒoë Ŋgö 李", 2, "phone")).toBeUndefined()
    expect(phones.check("+237677000001", "ʒoe ŋgo 李", 3, "phone")).toBeUndefined()
    expect(phones.check("+237677000001", "Other", 4, "phone")?.reason).toContain('is paid on line 2 to "Ʒoë Ŋgö 李"')
  })

  it.live("refuses a second name for one phone from the second row on, the same in validate's checks and in run's intake", () =>
    Effect.gen(function* () {
      const { run, single } = yield* checkAll(fileText(), false)
      expect(single._tag).toBe("Checked")
      const errors = single._tag === "Checked" ? single.errors : []
      expect(run._tag === "Loaded" ? run.errors : []).toEqual(errors)
      const reasons = errors.map((e) => `${e.line} ${e.column}: ${e.reason}`)
      expect(reasons).toEqual([
        `52 phone: ${phoneOf(49)} is paid on line 51 to "Seller 49"; a second recipient "Awa Diallo" for one phone is refused (a spreadsheet may have lost digits; --allow-shared-phone to accept)`,
        `902 phone: +237677000000 is paid on line 12 to "Amina Bello"; a second recipient "Jean Dupont" for one phone is refused: a spreadsheet may have lost its digits (the number ends in zeros, as scientific notation leaves it); format the column as text and re-enter the numbers (--allow-shared-phone to accept)`,
        `1402 phone: +237677000000 is paid on line 12 to "Amina Bello"; a second recipient "Jean Dupont" for one phone is refused: a spreadsheet may have lost its digits (the number ends in zeros, as scientific notation leaves it); format the column as text and re-enter the numbers (--allow-shared-phone to accept)`
      ])
    }), 120_000)

  it.live("--allow-shared-phone accepts them, and says which", () =>
    Effect.gen(function* () {
      const { run, single } = yield* checkAll(fileText(), true)
      expect(single._tag === "Checked" ? single.errors : ["refused"]).toEqual([])
      const phones = single._tag === "Checked" ? single.phones : undefined
      expect(phones?.allowed).toBe(true)
      expect(phones?.accepted.count).toBe(3)
      expect(phones?.accepted.rows.map((r) => [r.line, r.name, r.firstLine, r.firstName])).toEqual([
        [52, "Awa Diallo", 51, "Seller 49"],
        [902, "Jean Dupont", 12, "Amina Bello"],
        [1402, "Jean Dupont", 12, "Amina Bello"]
      ])
      expect(run._tag === "Loaded" ? run.phones?.accepted.count : undefined).toBe(3)
    }), 120_000)
})

describe("a phone written in scientific notation (issue 30)", () => {
  it("is refused saying a spreadsheet lost its digits, whatever the mantissa and exponent", () => {
    for (const cell of ["2.3767E+11", "2,3767E+11", "2.3767e11", "2E11", " 2.37670E+011 "]) {
      const result = normaliseMobile(cell, "CM")
      expect(result._tag).toBe("Left")
      expect(result._tag === "Left" ? result.left : "").toBe(
        `"${cell.trim()}" is in scientific notation: a spreadsheet lost its digits; format the column as text and re-enter the numbers`
      )
    }
  })

  it.live("on both paths, naming the line", () =>
    Effect.gen(function* () {
      const rows = Array.from({ length: 600 }, (_, i) => `P-${i},${500 + i},XAF,carrier1_cm,${phoneOf(i)},Seller ${i},s${i}@example.com`)
      rows[300] = `P-300,1000,XAF,carrier1_cm,2.3767E+11,Sci Notation,x@example.com`
      rows[400] = `P-400,1000,XAF,carrier1_cm,"2,3767E+11",Sci Comma,y@example.com`
      const { single } = yield* checkAll([HEADER, ...rows].join("\n") + "\n", false)
      const errors = single._tag === "Checked" ? single.errors : []
      expect(errors.map((e) => `${e.line} ${e.column}: ${e.reason}`)).toEqual([
        `302 phone: "2.3767E+11" is in scientific notation: a spreadsheet lost its digits; format the column as text and re-enter the numbers`,
        `402 phone: "2,3767E+11" is in scientific notation: a spreadsheet lost its digits; format the column as text and re-enter the numbers`
      ])
    }), 120_000)
})
