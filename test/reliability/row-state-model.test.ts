/**
 * The row state machine, model-based (issue 4): fast-check `fc.commands` over the SQLite store with
 * claims (the durable intent), answers, polls, reconciliation resends, releases of unsent rows and
 * crashes (the store closed and reopened). After every command the store equals the model: a row
 * moves only along the forward graph, a final row never changes (but completed -> refunded), a
 * reference once known is kept, and a crash loses nothing committed.
 * Replay: ROW_MODEL_SEED=<seed> ROW_MODEL_PATH=<path>.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { canMove, isFinal, ROW_STATES, type RowState } from "../../src/store/RowState.ts"
import type { StateStoreShape } from "../kit/Store.ts"
import { ACCOUNT, newBatch, openStore, rowInputs } from "../store/fixtures.ts"
import { tempDir } from "../kit/TempDir.ts"
import { join } from "node:path"
import { BatchId, Reference } from "../../src/domain/Ids.ts"

const ROWS = 4
const BATCH = "model"

interface RowModel {
  state: RowState
  reference: string | null
  attempts: number
  /** Automatic resends claimed (not compared: it decides where a release puts the row). */
  resends: number
}

type Model = { rows: Array<RowModel> }

interface Real {
  store: StateStoreShape
  close: Effect.Effect<void>
  readonly filename: string
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

const agree = async (m: Model, r: Real) => {
  for (let idx = 0; idx < ROWS; idx++) {
    const row = Option.getOrThrow(await run(r.store.batch(ACCOUNT, BatchId.make(BATCH)).getRow(idx)))
    const { resends: _resends, ...expected } = m.rows[idx]
    expect({ idx, state: row.state, reference: row.reference, attempts: row.attempts }).toEqual({ idx, ...expected })
  }
}

type Cmd = fc.AsyncCommand<Model, Real>

class Claim implements Cmd {
  constructor(readonly limit: number) {}
  check = () => true
  async run(m: Model, r: Real) {
    const claimed = await run(r.store.batch(ACCOUNT, BatchId.make(BATCH)).claimRows({ limit: this.limit }))
    const validated = m.rows.flatMap((row, idx) => (row.state === "validated" ? [idx] : []))
    expect(claimed.length).toBe(Math.min(this.limit, validated.length))
    for (const row of claimed) {
      expect(validated).toContain(row.idx)
      m.rows[row.idx] = { ...m.rows[row.idx], state: "submitting", attempts: m.rows[row.idx].attempts + 1 }
    }
    await agree(m, r)
  }
  toString = () => `claim(${this.limit})`
}

class Move implements Cmd {
  constructor(readonly idx: number, readonly to: RowState, readonly from: ReadonlyArray<RowState> | undefined, readonly reference: Reference | undefined) {}
  check = () => true
  async run(m: Model, r: Real) {
    const before = m.rows[this.idx]
    const applied = await run(
      r.store.batch(ACCOUNT, BatchId.make(BATCH)).recordTransition({
        idx: this.idx,
        to: this.to,
        source: "response",
        ...(this.from === undefined ? {} : { from: this.from }),
        ...(this.reference === undefined ? {} : { reference: this.reference })
      })
    )
    const allowed = canMove(before.state, this.to) && (this.from === undefined || this.from.includes(before.state))
    expect(applied).toBe(allowed)
    if (applied) {
      if (isFinal(before.state)) expect([before.state, this.to]).toEqual(["completed", "refunded"])
      // Every move into submitting is an intent: one more attempt.
      m.rows[this.idx] = { state: this.to, reference: before.reference ?? this.reference ?? null, attempts: before.attempts + (this.to === "submitting" ? 1 : 0), resends: before.resends }
    }
    await agree(m, r)
  }
  toString = () => `move(${this.idx} -> ${this.to}${this.from ? ` from ${this.from.join("|")}` : ""}${this.reference ? ` ref ${this.reference}` : ""})`
}

class Resend implements Cmd {
  constructor(readonly idxs: ReadonlyArray<number>) {}
  check = () => true
  async run(m: Model, r: Real) {
    const claimed = await run(r.store.batch(ACCOUNT, BatchId.make(BATCH)).claimForResend(this.idxs))
    const expected = [...new Set(this.idxs)].filter((i) => m.rows[i].state === "unknown").sort()
    expect(claimed.map((row) => row.idx).sort()).toEqual(expected)
    for (const i of expected) m.rows[i] = { ...m.rows[i], state: "submitting", attempts: m.rows[i].attempts + 1, resends: m.rows[i].resends + 1 }
    await agree(m, r)
  }
  toString = () => `resend(${this.idxs.join(",")})`
}

class Release implements Cmd {
  constructor(readonly idxs: ReadonlyArray<number>) {}
  check = () => true
  async run(m: Model, r: Real) {
    const released = await run(r.store.batch(ACCOUNT, BatchId.make(BATCH)).releaseRows(this.idxs, "never sent"))
    const expected = [...new Set(this.idxs)].filter((i) => m.rows[i].state === "submitting").sort()
    expect([...released].sort()).toEqual(expected)
    // The attempt never happened. A resend never sent goes back to unknown (the first request's outcome
    // is still unproven), its one automatic resend not spent; a first send goes back to validated.
    for (const i of expected) {
      const row = m.rows[i]
      m.rows[i] = row.resends > 0
        ? { ...row, state: "unknown", attempts: Math.max(row.attempts - 1, 0), resends: row.resends - 1 }
        : { ...row, state: "validated", attempts: Math.max(row.attempts - 1, 0) }
    }
    await agree(m, r)
  }
  toString = () => `release(${this.idxs.join(",")})`
}

class Crash implements Cmd {
  check = () => true
  async run(m: Model, r: Real) {
    await run(r.close)
    const reopened = await run(openStore(r.filename))
    r.store = reopened.store
    r.close = reopened.close
    await agree(m, r)
  }
  toString = () => "crash+reopen"
}

const idx = fc.integer({ min: 0, max: ROWS - 1 })
const commands = [
  fc.integer({ min: 1, max: 3 }).map((n) => new Claim(n)),
  fc
    .tuple(idx, fc.constantFrom(...ROW_STATES), fc.option(fc.subarray([...ROW_STATES], { minLength: 1 }), { nil: undefined }), fc.option(fc.constantFrom("TXN1", "TXN2").map(Reference.make), { nil: undefined }))
    .map(([i, to, from, reference]) => new Move(i, to, from, reference)),
  fc.array(idx, { minLength: 1, maxLength: 3 }).map((idxs) => new Resend(idxs)),
  fc.array(idx, { minLength: 1, maxLength: 3 }).map((idxs) => new Release(idxs)),
  fc.constant(new Crash())
]

describe("row state machine, model-based", () => {
  it.live("claims, answers, resends, releases and crashes keep the store equal to the forward-only model", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (cmds) => {
          const filename = join(tempDir("payouts-rowmodel-"), "state.db")
          const opened = await run(openStore(filename))
          await run(opened.store.createBatch(newBatch(BATCH), rowInputs(ROWS)))
          const real: Real = { store: opened.store, close: opened.close, filename }
          try {
            const model: Model = { rows: Array.from({ length: ROWS }, () => ({ state: "validated" as RowState, reference: null, attempts: 0, resends: 0 })) }
            await fc.asyncModelRun(() => ({ model, real }), cmds)
          } finally {
            await run(real.close)
          }
        }),
        {
          numRuns: 150,
          ...(process.env.ROW_MODEL_SEED === undefined ? {} : { seed: Number(process.env.ROW_MODEL_SEED) }),
          ...(process.env.ROW_MODEL_PATH === undefined ? {} : { path: process.env.ROW_MODEL_PATH })
        }
      )
    ),
    120_000
  )
})
