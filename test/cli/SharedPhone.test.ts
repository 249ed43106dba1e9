/**
 * One phone, one recipient (issue 30 item 2) through the real binary: two sellers sharing a phone
 * under different names refuse the file (exit 2, the first line named) unless --allow-shared-phone,
 * which the summary records; a phone cell in scientific notation is refused as digits lost; a phone
 * another batch paid to another name is listed by validate, in the summary and in the report.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ordinaryPhone } from "../run/support.ts"
import { admin, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { cli, FAST } from "./binarySupport.ts"

const HEADER = "id,amount,currency,operator,phone,name,email"
const SHARED = "+237677000000"

const csv = (dir: string, name: string, rows: ReadonlyArray<string>) => {
  const file = join(dir, name)
  writeFileSync(file, [HEADER, ...rows].join("\n") + "\n")
  return file
}

describe("one phone, one recipient (the binary)", () => {
  it.scopedLive("two sellers sharing a phone under different names: validate exits 2 naming the first line; --allow-shared-phone pays them and the summary records it", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir("payouts-shared-phone-")
      const state = join(dir, "state.db")
      const file = csv(dir, "sellers.csv", [
        `S-1,1000,XAF,carrier1_cm,${ordinaryPhone(1)},Paul Ngono,p@example.com`,
        `S-2,2000,XAF,carrier1_cm,${SHARED},Amina Bello,a@example.com`,
        `S-3,3000,XAF,carrier1_cm,237677000000,Jean Dupont,j@example.com`
      ])
      const refused = yield* cli(sandbox, state, ["validate", file])
      expect(refused.code, refused.stderr).toBe(2)
      const reason = `sellers.csv line 4, column "phone": ${SHARED} is paid on line 3 to "Amina Bello"; a second recipient "Jean Dupont" for one phone is refused`
      expect(refused.stderr).toContain(reason)
      expect(refused.stderr).toContain("a spreadsheet may have lost its digits")
      expect(readFileSync(join(dir, "sellers.errors.csv"), "utf8")).toMatch(/^4,phone,/m)

      const allowed = yield* cli(sandbox, state, ["validate", file, "--allow-shared-phone", "--json"])
      expect(allowed.code, allowed.stderr).toBe(0)
      const summary = JSON.parse(allowed.stdout)
      expect(summary.allow_shared_phone).toBe(true)
      expect(summary.shared_phones).toEqual({
        count: 1,
        rows: [{ line: 4, phone: "+237*******00", name: "Jean Dupont", first_line: 3, first_name: "Amina Bello" }]
      })

      const paid = yield* cli(sandbox, state, ["run", file, ...FAST, "--allow-shared-phone"])
      expect(paid.code, paid.stderr).toBe(0)
      const written = JSON.parse(readFileSync(join(dir, "sellers.summary.json"), "utf8"))
      expect(written.allow_shared_phone).toBe(true)
      expect(written.shared_phones.count).toBe(1)
      expect(readFileSync(join(dir, "sellers.report.html"), "utf8")).toContain(`data-table="shared-phones"`)
      expect((yield* admin(sandbox).payouts).length).toBe(3)
    }), 120_000)

  it.scopedLive("a phone cell in scientific notation is refused: a spreadsheet lost its digits", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir("payouts-sci-phone-")
      const file = csv(dir, "sci.csv", [
        `S-1,1000,XAF,carrier1_cm,${ordinaryPhone(1)},Paul Ngono,p@example.com`,
        `S-2,2000,XAF,carrier1_cm,2.3767E+11,Amina Bello,a@example.com`
      ])
      const refused = yield* cli(sandbox, join(dir, "state.db"), ["validate", file])
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain(`line 3, column "phone": "2.3767E+11" is in scientific notation: a spreadsheet lost its digits; format the column as text and re-enter the numbers`)
    }), 120_000)

  it.scopedLive("a phone another batch paid to another name is listed by validate, in the summary and in the report, never refused", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
      const dir = tempDir("payouts-shared-history-")
      const state = join(dir, "state.db")
      const first = csv(dir, "week1.csv", [
        `W1-1,1000,XAF,carrier1_cm,${ordinaryPhone(7)},Amina Bello,a@example.com`,
        `W1-2,1000,XAF,carrier1_cm,${ordinaryPhone(9)},Koffi Adjo,k@example.com`
      ])
      const paid = yield* cli(sandbox, state, ["run", first, ...FAST])
      expect(paid.code, paid.stderr).toBe(0)

      const second = csv(dir, "week2.csv", [
        `W2-1,1500,XAF,carrier1_cm,${ordinaryPhone(8)},Paul Ngono,p@example.com`,
        `W2-2,2500,XAF,carrier1_cm,${ordinaryPhone(7)},Jean Dupont,j@example.com`,
        `W2-3,3500,XAF,carrier1_cm,${ordinaryPhone(9)},KOFFI  adjo,k@example.com` // the same name, folded: not listed
      ])
      const masked = `${ordinaryPhone(7).slice(0, 4)}*******${ordinaryPhone(7).slice(-2)}`
      const validated = yield* cli(sandbox, state, ["validate", second, "--json"])
      expect(validated.code, validated.stderr).toBe(0)
      expect(validated.stderr).toContain(`line 3: phone ${masked} to "Jean Dupont" was paid to "Amina Bello" in week1.csv line 2`)
      expect(validated.stderr).not.toContain(ordinaryPhone(7))
      const listed = {
        count: 1,
        rows: [{ line: 3, phone: masked, name: "Jean Dupont", earlier_name: "Amina Bello", earlier_batch: expect.any(String), earlier_file: "week1.csv", earlier_line: 2 }]
      }
      expect(JSON.parse(validated.stdout).shared_phones_history).toEqual(listed)

      const run = yield* cli(sandbox, state, ["run", second, ...FAST])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toContain(`line 3: phone ${masked} to "Jean Dupont" was paid to "Amina Bello"`)
      expect(JSON.parse(readFileSync(join(dir, "week2.summary.json"), "utf8")).shared_phones_history).toEqual(listed)
      const report = readFileSync(join(dir, "week2.report.html"), "utf8")
      expect(report).toContain(`data-table="shared-phones-history"`)
      expect(report).toContain("Jean Dupont")
    }), 120_000)
})
