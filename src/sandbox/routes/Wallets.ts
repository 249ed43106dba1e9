/** GET /v1/wallet and GET /v1/wallet/summary. */
import { HttpRouter } from "@effect/platform"
import { Effect, HashMap, Ref, Schema } from "effect"
import type { WalletsResponse } from "../../api/Schemas.ts"
import { BalanceSummary, Last30Days, SummaryResponse, WalletSummary } from "../../api/Schemas.ts"
import { toWire } from "../../domain/Money.ts"
import { DAY } from "../Clock.ts"
import { SandboxContext } from "../Context.ts"
import { answerOk, type Answer, jsonOf, ok, toResponse } from "../Http.ts"
import type { SandboxState } from "../State.ts"
import { walletView } from "../Views.ts"

export const walletsAnswer = (state: SandboxState): Answer =>
  answerOk(jsonOf<typeof WalletsResponse.Encoded>({ wallets: Object.values(state.wallets).map(walletView) }))

const summary = (state: SandboxState, now: number) => {
  const wallets = Object.values(state.wallets)
  const since = now - 30 * DAY
  const last = { total_payin_count: 0, total_payin_amount: 0, total_payout_count: 0, total_payout_amount: 0, total_fee_amount: 0 }
  for (const txn of HashMap.values(state.transactions)) {
    if (txn.createdAt < since || txn.status !== "completed" || txn.type === "adjustment") continue
    const amount = toWire(txn.amount, txn.currency)
    if (txn.type === "payin") {
      last.total_payin_count += 1
      last.total_payin_amount += amount
    } else {
      last.total_payout_count += 1
      last.total_payout_amount += amount
    }
    last.total_fee_amount += toWire(txn.fee, txn.currency)
  }
  return new WalletSummary({
    total_balance_summary: wallets.map(
      (w) =>
        new BalanceSummary({
          currency: w.currency,
          total_balance: toWire(w.balance, w.currency),
          total_available: toWire(w.balance - w.reserved, w.currency),
          total_pending: toWire(w.pending, w.currency),
          total_reserved: toWire(w.reserved, w.currency)
        })
    ),
    transaction_summary: { last_30_days: new Last30Days(last) }
  })
}

export const walletRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/v1/wallet", Effect.flatMap(SandboxContext, (ctx) => Effect.map(Ref.get(ctx.state), (state) => toResponse(walletsAnswer(state))))),
  HttpRouter.get(
    "/v1/wallet/summary",
    Effect.flatMap(SandboxContext, (ctx) =>
      Effect.zipWith(ctx.clock.now, Ref.get(ctx.state), (now, state) =>
        ok(
          Schema.encodeSync(SummaryResponse)(
            new SummaryResponse({ success: true, message: "Wallet summary retrieved successfully", data: summary(state, now) })
          )
        )
      )
    )
  )
)
