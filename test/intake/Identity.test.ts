/**
 * Issue 30, through the real binary against a real sandbox: one identity for each id (an id written
 * with an invisible character is refused by code point; one written in another case, width or with a
 * look-alike letter is the same id, within a file and across batches), spreadsheet error values and
 * tab- or pipe-separated files refused. `payouts validate` and `payouts run` refuse alike (exit 2),
 * and nothing is paid twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { cli, FAST } from "../cli/binarySupport.ts"
import { ordinaryPhone } from "../run/support.ts"
import { admin, type Sandbox, startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"

const HEADER = "id,amount,currency,operator,phone,name,email,meta.shop"

/** A row of a distinct seller: its own phone, name and e-mail (`n` tells them apart). */
const row = (id: string, n: number, over: { readonly name?: string; readonly shop?: string } = {}) =>
  [id, "5000", "XAF", "carrier1_cm", ordinaryPhone(3_000 + n), over.name ?? `Seller ${n}`, `seller${n}@example.com`, over.shop ?? `shop-${n}`].join(",")

const write = (dir: string, name: string, lines: ReadonlyArray<string>, separator = ",") => {
  const file = join(dir, name)
  writeFileSync(file, `${[HEADER, ...lines].map((l) => (separator === "," ? l : l.replaceAll(",", separator))).join("\n")}\n`)
  return file
}

const paid = (sandbox: Sandbox) => Effect.map(admin(sandbox).payouts, (p) => p.length)

/** `payouts validate` then `payouts run` of the file: both exit 2 with `expected` on stderr; nothing paid by them. */
const refusedByBoth = (sandbox: Sandbox, state: string, file: string, expected: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const before = yield* paid(sandbox)
    for (const command of ["validate", "run"]) {
      const done = yield* cli(sandbox, state, command === "run" ? ["run", file, ...FAST] : ["validate", file])
      expect(done.code, `${command}: ${done.stderr}`).toBe(2)
      for (const text of expected) expect(done.stderr, command).toContain(text)
      // Never the invisible character itself on a terminal.
      expect(done.stderr + done.stdout, command).not.toMatch(/[\u200B\uFEFF\u00A0]/)
    }
    expect(yield* paid(sandbox)).toBe(before)
  })

describe("one identity for each id; spreadsheet residue (the binary)", () => {
  it.scopedLive(
    "an id with U+200B beside the same id plain, and ids written in another case, width or with a Cyrillic S, are refused within one file",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-identity-")
        const state = join(dir, "state.db")

        const invisible = write(dir, "invisible.csv", [row("S-1001", 1), row("S-1001\u200B", 2)])
        yield* refusedByBoth(sandbox, state, invisible, [`id "S-1001<U+200B>" holds an invisible character U+200B at position 7`])
        const errors = readFileSync(join(dir, "invisible.errors.csv"), "utf8")
        expect(errors).toContain("3,id,S-1001<U+200B>,")

        const variants = write(dir, "variants.csv", [row("S-1001", 1), row("s-1001", 2), row("S\uFF0D1001", 3), row("\u0405-1001", 4)])
        yield* refusedByBoth(sandbox, state, variants, [
          `line 3, column "id": duplicate id "s-1001": first used on line 2`,
          `line 4, column "id": duplicate id "S\uFF0D1001": first used on line 2`,
          `line 5, column "id": duplicate id "\u0405-1001": first used on line 2`
        ])
      }),
    240_000
  )

  it.scopedLive(
    "an id paid in one batch is refused in the next written in another case, width or with a Cyrillic S; only the first is paid",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-identity-across-")
        const state = join(dir, "state.db")
        const first = write(dir, "first.csv", [row("S-2001", 1)])
        // Timings that hold on a loaded machine: this run must end paid (exit 0), not merely end.
        const patient = ["--poll-interval", "100ms", "--poll-max", "300ms", "--reconcile-grace", "1s", "--lease-ttl", "15s", "--request-timeout", "15s"]
        const done = yield* cli(sandbox, state, ["run", first, ...patient])
        expect(done.code, done.stdout + done.stderr).toBe(0)
        expect(yield* paid(sandbox)).toBe(1)
        // The ledger keeps the id as written.
        expect(readFileSync(join(dir, "first.ledger.csv"), "utf8")).toContain("S-2001")

        for (const [name, id] of [["lower.csv", "s-2001"], ["wide.csv", "S\uFF0D2001"], ["cyrillic.csv", "\u0405-2001"]] as const) {
          const again = write(dir, name, [row(id, 2)])
          yield* refusedByBoth(sandbox, state, again, [`id "${id}" was already used in first.csv line 2`])
        }
        expect(yield* paid(sandbox)).toBe(1)
      }),
    240_000
  )

  it.scopedLive(
    "a spreadsheet error value in a cell (a name, a meta column) refuses its row naming the column; a tab- or pipe-separated file is refused whole",
    () =>
      Effect.gen(function* () {
        const sandbox = yield* startSandbox({ timeScale: 1, payoutDelaySeconds: 1 })
        const dir = tempDir("payouts-identity-residue-")
        const state = join(dir, "state.db")

        const residue = write(dir, "residue.csv", [row("R-1", 1), row("R-2", 2, { name: "#REF!" }), row("R-3", 3, { shop: "#N/A" }), row("R-4", 4, { name: "#NOM?" })])
        yield* refusedByBoth(sandbox, state, residue, [
          `line 3, column "name": "#REF!" is a spreadsheet error value, not a value: fix the cell in the spreadsheet`,
          `line 4, column "meta.shop": "#N/A" is a spreadsheet error value`,
          `line 5, column "name": "#NOM?" is a spreadsheet error value`
        ])

        const tabs = write(dir, "tabs.csv", [row("T-1", 1)], "\t")
        yield* refusedByBoth(sandbox, state, tabs, ["the file is tab-separated: payouts reads comma- or semicolon-separated files (save it as CSV)"])
        const pipes = write(dir, "pipes.csv", [row("T-1", 1)], "|")
        yield* refusedByBoth(sandbox, state, pipes, ["the file is pipe-separated (|)"])
      }),
    240_000
  )
})
