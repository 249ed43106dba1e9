/**
 * The person of the multi-worker soak's calm end. DESIGN 7 leaves a row to a person when its resend
 * cannot be proven: a resend whose outcome was unknown again (rule 6), or the stream's last ambiguous
 * POST, which no later payout of ours can witness (rule 2) and which would become an alarm only at the
 * reconcile deadline (two hours). A stream that ends on such a row cannot reach done/ without someone,
 * so the soak plays the operator the README describes, in the calm end only: for a batch in attention/,
 * or, once the workers are stopped, a batch in processing/ whose last rows have stayed `unknown` with
 * no traffic left, it reads the evidence with `payouts resolve BATCH --json`, checks the candidates
 * "by hand" (the sandbox's own records, as a person would in the provider's dashboard), adopts the
 * payout that carries the row's token or resends when none does, and moves an attention/ file back
 * into processing/ for a worker to finish. The product's guards stay in force: `resolve --resend` is
 * refused while a listed payout carries the token, and a wrong decision shows up as a duplicate in the
 * verdict.
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { SandboxPayout } from "./sandbox.ts"

const BIN = join(fileURLToPath(new URL("../..", import.meta.url)), "bin", "payouts.js")

interface Evidence {
  readonly accountAlarm?: string
  readonly rows: ReadonlyArray<{
    readonly line: number
    readonly token: string
    readonly state: string
    readonly alarm: string | null
    readonly carrying: ReadonlyArray<{ readonly reference: string }>
    readonly possible: ReadonlyArray<{ readonly reference: string }>
  }>
}

export interface PersonConfig {
  readonly dir: string
  readonly env: NodeJS.ProcessEnv
  readonly payouts: () => Promise<ReadonlyArray<SandboxPayout>>
  readonly log: (line: string) => void
}

const payouts = (config: PersonConfig, args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((ok) => {
    const proc = spawn(process.execPath, [BIN, ...args], { env: config.env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    proc.stdout.on("data", (d: Buffer) => (out += d.toString()))
    proc.stderr.on("data", (d: Buffer) => (err += d.toString()))
    proc.on("close", (code) => ok({ code, out, err }))
  })

/** What the person decides for one row: the payout carrying its token if exactly one exists, else a resend. */
const decide = (row: Evidence["rows"][number], all: ReadonlyArray<SandboxPayout>): ReadonlyArray<string> | string => {
  const listed = row.carrying.map((p) => p.reference)
  // Checked by hand: the sandbox's full records show which candidate (cut descriptions included) is this row's.
  const byHand = all.filter((p) => p.description.startsWith(`[${row.token}]`)).map((p) => p.reference)
  const found = [...new Set([...listed, ...byHand])]
  if (found.length > 1) return `${found.length} payouts carry its token (${found.join(", ")}): a duplicate, left as it is`
  if (found.length === 1) return ["--adopt", found[0]]
  if (row.state !== "unknown") return `state ${row.state} with alarm "${row.alarm}": nothing a person can settle here`
  return ["--resend"]
}

/** Settles every unknown or alarmed row of one batch; true when each decision was taken. */
const settleBatch = async (config: PersonConfig, name: string, batchId: string, left: Array<string>): Promise<{ decisions: number; settled: boolean }> => {
  const base = ["resolve", batchId, "--jobs", config.dir, "--by", "soak-person"]
  const shown = await payouts(config, [...base, "--json"])
  let evidence: Evidence
  try {
    evidence = JSON.parse(shown.out) as Evidence
  } catch {
    left.push(`${name}: resolve showed no evidence (exit ${shown.code}): ${shown.err.trim().slice(0, 300)}`)
    return { decisions: 0, settled: false }
  }
  if (evidence.accountAlarm !== undefined) {
    left.push(`${name}: account alarm "${evidence.accountAlarm}" (a person must check the listing itself)`)
    return { decisions: 0, settled: false }
  }
  const all = await config.payouts()
  let decisions = 0
  let settled = true
  for (const row of evidence.rows) {
    const choice = decide(row, all)
    if (typeof choice === "string") {
      left.push(`${name} line ${row.line}: ${choice}`)
      settled = false
      continue
    }
    const reason = `soak calm end: ${row.alarm ?? row.state}`
    const done = await payouts(config, [...base, "--line", String(row.line), ...choice, "--reason", reason])
    decisions++
    config.log(`person: ${name} line ${row.line} (${row.alarm ?? row.state}) ${choice.join(" ")} -> exit ${done.code}${done.code === 0 ? "" : `: ${done.err.trim().slice(0, 300)}`}`)
    if (done.code !== 0) settled = false
  }
  return { decisions, settled }
}

/** Settles every batch now in attention/; returns the decisions taken and what was left alone (and why). */
export const settleAttention = async (config: PersonConfig): Promise<{ readonly decisions: number; readonly left: ReadonlyArray<string> }> => {
  const attention = join(config.dir, "attention")
  if (!existsSync(attention)) return { decisions: 0, left: [] }
  let decisions = 0
  const left: Array<string> = []
  for (const note of readdirSync(attention).filter((f) => f.endsWith(".attention.txt"))) {
    const name = note.replace(/\.attention\.txt$/, ".csv")
    const batchId = /^Batch (\S+) /.exec(readFileSync(join(attention, note), "utf8"))?.[1]
    if (batchId === undefined || !existsSync(join(attention, name))) continue
    const pass = await settleBatch(config, name, batchId, left)
    decisions += pass.decisions
    if (pass.settled) {
      renameSync(join(attention, name), join(config.dir, "processing", name))
      config.log(`person: ${name} moved back into processing/`)
    }
  }
  return { decisions, left }
}

/** Settles the unknown rows of batches still in processing/ (the workers stopped: the leases are free). */
export const settleStuck = async (config: PersonConfig, batches: ReadonlyArray<{ readonly name: string; readonly batchId: string }>) => {
  let decisions = 0
  const left: Array<string> = []
  for (const b of batches) decisions += (await settleBatch(config, b.name, b.batchId, left)).decisions
  return { decisions, left }
}
