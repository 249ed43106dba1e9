/**
 * The faults that make an answer lie about its numbers or its size, so a client's checks can be
 * rehearsed (docs/sandbox.md, the fault grammar): a status with an absurd or negative fee, another reference's
 * record, a listing claiming more than it holds, a body padded to a size. Only the answer lies: the
 * sandbox's state, and so its money invariant, is untouched.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import type { StatusRecord } from "../api/Schemas.ts"
import { toWire } from "../domain/Money.ts"
import type { FaultState, SandboxContext } from "./Context.ts"
import { count } from "./Context.ts"
import { type FaultEndpoint, faultOf, seededUnit } from "./Faults.ts"
import type { Txn } from "./State.ts"

type StatusView = typeof StatusRecord.Encoded

/** Whether this payout's answers carry the lie: fixed per payout by the seed, so every lookup agrees. */
const lies = (ctx: SandboxContext, kind: "fee_absurd" | "fee_negative" | "foreign_ref", txn: Txn): boolean => {
  const share = faultOf(ctx.faults.settings, "status", kind) ?? 0
  return share > 0 && seededUnit(ctx.faults.seed, kind, txn.seq) < share
}

/** A status record as the status faults have it. */
export const statusLie = (ctx: SandboxContext, txn: Txn, view: StatusView): StatusView => {
  if (txn.type !== "payout") return view
  if (lies(ctx, "foreign_ref", txn)) {
    count(ctx.faults.counters, "status.foreign_ref")
    const other = Object.values(ctx.state.transactions).find((t) => t.reference !== txn.reference)
    return { ...view, reference: other?.reference ?? `${txn.reference}-OTHER`, amount: toWire(txn.amount * 1000, txn.currency), status: "completed" }
  }
  if (lies(ctx, "fee_absurd", txn)) {
    count(ctx.faults.counters, "status.fee_absurd")
    return { ...view, fee: 1e300 }
  }
  if (lies(ctx, "fee_negative", txn)) {
    count(ctx.faults.counters, "status.fee_negative")
    return { ...view, fee: -toWire(Math.max(1, txn.fee), txn.currency) }
  }
  return view
}

/** The listing's claimed total and pages: the truth, or `total_lie`'s larger claim. */
export const claimedTotals = (ctx: SandboxContext, total: number, totalPages: number, limit: number) => {
  const lie = faultOf(ctx.faults.settings, "transactions", "total_lie")
  if (lie === undefined || lie <= total) return { total, totalPages }
  count(ctx.faults.counters, "transactions.total_lie")
  return { total: lie, totalPages: Math.max(totalPages, Math.ceil(lie / limit)) }
}

const PAD_CHUNK = 64 * 1024

/**
 * An answer of `bytes` bytes (a JSON object with one long string), streamed chunk by chunk without a
 * Content-Length: nothing is built whole, and `ENDPOINT.huge_body_bytes` counts what the client took.
 */
export const hugeBody = (faults: FaultState, endpoint: FaultEndpoint, bytes: number): HttpServerResponse.HttpServerResponse => {
  count(faults.counters, `${endpoint}.huge_body`)
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
    Stream.tap((part) => Effect.sync(() => {
      faults.counters[key] = (faults.counters[key] ?? 0) + part.length
    }))
  )
  return HttpServerResponse.stream(body, { status: 200, contentType: "application/json" })
}

/** The huge_body fault of an endpoint, if set. */
export const hugeBodyOf = (faults: FaultState, endpoint: FaultEndpoint): number | undefined => faultOf(faults.settings, endpoint, "huge_body")
