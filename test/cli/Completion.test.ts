/**
 * Shell completion (issue 33, item 5): the bash script `payouts --completions bash` prints, loaded
 * into a real bash, completes a command and a command's option; zsh and fish scripts are printed.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { withTempDir } from "../kit/TempDir.ts"

const BIN = fileURLToPath(new URL("../../bin/payouts.js", import.meta.url))

const script = (shell: string) => execFileSync(process.execPath, [BIN, "--completions", shell], { encoding: "utf8" })

/** What bash offers for the words typed so far (the last one being completed). */
const complete = (file: string, words: ReadonlyArray<string>) =>
  execFileSync("bash", ["-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _payouts_bash_completions payouts "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "\${COMPREPLY[@]}"`, "bash", file, ...words], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "")

describe("shell completion", () => {
  it("bash completes a command and an option of that command", () => {
    withTempDir("payouts-completion-", (dir) => {
      const file = join(dir, "payouts.bash")
      writeFileSync(file, script("bash"))
      expect(complete(file, ["payouts", "val"])).toEqual(["validate"])
      expect(complete(file, ["payouts", "re"]).sort()).toEqual(["reconcile", "reject", "resolve", "resume", "retry"])
      expect(complete(file, ["payouts", "run", "--conc"])).toEqual(["--concurrency"])
      expect(complete(file, ["payouts", "watch", "--sched"])).toEqual(["--schedule"])
      // An option of another command is not offered, nor @effect/cli's --wizard, which is refused when typed.
      expect(complete(file, ["payouts", "wallet", "--sched"])).toEqual([])
      expect(complete(file, ["payouts", "run", "--wiz"])).toEqual([])
    })
  })

  it("zsh and fish scripts name the commands", () => {
    expect(script("zsh")).toContain("#compdef payouts")
    expect(script("zsh")).toContain("validate")
    const fish = script("fish")
    expect(fish).toMatch(/complete -c payouts .*-a "validate"/)
    for (const shell of ["zsh", "fish"]) expect(script(shell)).not.toContain("wizard")
  })
})
