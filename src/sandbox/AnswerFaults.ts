/**
 * The faults that make an answer lie about its numbers or its size, so a client's checks can be
 * rehearsed (docs/sandbox.md, the fault grammar): a status with an absurd or negative fee, another reference's
 * record, a listing claiming more than it holds, a body padded to a size. Only the answer lies: the
 * sandbox's state, and so its money invariant, is untouched.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, HashMap, Option, Ref, Stream } from "effect"
import type { StatusRecord } from "../api/Schemas.ts"
import { toWire } from "../domain/Money.ts"
import { count, type FaultState, type FaultWorld } from "./FaultWorld.ts"
import { type FaultEndpoint, faultOf } from "./FaultSettings.ts"
import { seededUnit } from "./SeededUnit.ts"
import type { SandboxState, Txn } from "./State.ts"

type StatusView = typeof StatusRecord.Encoded

/** Whether this payout's answers carry the lie: fixed per payout by the seed, so every lookup agrees. */
const lies = (world: FaultWorld, kind: "fee_absurd" | "fee_negative" | "foreign_ref", txn: Txn): boolean => {
  const share = faultOf(world.settings, "status", kind) ?? 0
  return share > 0 && seededUnit(world.seed, kind, txn.seq) < share
}

/** The earliest transaction but `reference` (another's record to show). */
const firstOther = (state: SandboxState, reference: string): Txn | undefined => {
  let first: Txn | undefined
  for (const t of HashMap.values(state.transactions)) if (t.reference !== reference && (first === undefined || t.seq < first.seq)) first = t
  return first
}

/** A status record as the status faults have it. */
export const statusLie = (faults: FaultState, state: SandboxState, txn: Txn, view: StatusView): Effect.Effect<StatusView> => {
  if (txn.type !== "payout") return Effect.succeed(view)
  return Effect.flatMap(Ref.get(faults), (world) => {
    if (lies(world, "foreign_ref", txn)) {
      const other = firstOther(state, txn.reference)
      const lie = { ...view, reference: other?.reference ?? `${txn.reference}-OTHER`, amount: toWire(txn.amount * 1000, txn.currency), status: "completed" }
      return Effect.as(count(faults, "status.foreign_ref"), lie)
    }
    if (lies(world, "fee_absurd", txn)) return Effect.as(count(faults, "status.fee_absurd"), { ...view, fee: 1e300 })
    if (lies(world, "fee_negative", txn)) {
      return Effect.as(count(faults, "status.fee_negative"), { ...view, fee: -toWire(Math.max(1, txn.fee), txn.currency) })
    }
    return Effect.succeed(view)
  })
}

/** The listing's claimed total and pages: the truth, or `total_lie`'s larger claim. */
export const claimedTotals = (faults: FaultState, world: FaultWorld, total: number, totalPages: number, limit: number) => {
  const lie = faultOf(world.settings, "transactions", "total_lie")
  if (lie === undefined || lie <= total) return Effect.succeed({ total, totalPages })
  return Effect.as(count(faults, "transactions.total_lie"), { total: lie, totalPages: Math.max(totalPages, Math.ceil(lie / limit)) })
}

const PAD_CHUNK = 64 * 1024

/**
 * An answer of `bytes` bytes (a JSON object with one long string), streamed chunk by chunk without a
 * Content-Length: nothing is built whole, and `ENDPOINT.huge_body_bytes` counts what the client took.
 */
export const hugeBody = (faults: FaultState, endpoint: FaultEndpoint, bytes: number): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const head = new TextEncoder().encode(`{"pad":"`)
  const tail = new TextEncoder().encode(`"}`)
  const chunk = new Uint8Array(PAD_CHUNK).fill(0x78)
  const padding = Math.max(0, bytes - head.length - tail.length)
  const key = `${endpoint}.huge_body_bytes`
  const parts = Stream.concat(
    Stream.unfold(padding, (left) => (left <= 0 ? Option.none() : Option.some([left >= PAD_CHUNK ? chunk : chunk.subarray(0, left), left - PAD_CHUNK] as const))),
    Stream.make(tail)
  )
  const body = Stream.concat(Stream.make(head), parts).pipe(
    Stream.tap((part) => count(faults, key, part.length))
  )
  return Effect.as(count(faults, `${endpoint}.huge_body`), HttpServerResponse.stream(body, { status: 200, contentType: "application/json" }))
}

/** The huge_body fault of an endpoint, if set. */
export const hugeBodyOf = (world: FaultWorld, endpoint: FaultEndpoint): number | undefined => faultOf(world.settings, endpoint, "huge_body")
