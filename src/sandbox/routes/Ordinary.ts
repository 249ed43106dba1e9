// The outcome of an ordinary number (none of the spec's test numbers), for payouts and pay-ins alike.
import { Effect } from "effect"
import type { SandboxContext } from "../Context.ts"
import type { Plan } from "../State.ts"

/** Failed with the configured ratio, drawn from the seeded outcomes (so a seed replays it), else completed. */
export const ordinaryPlan = (
  ctx: SandboxContext["Type"],
  at: Pick<Plan, "processingAt" | "finalAt">,
  descriptions: { readonly failed: string; readonly completed: string }
): Effect.Effect<Plan> => {
  const ratio = ctx.settings.failureRatio
  const plan = (fails: boolean): Plan =>
    fails ? { ...at, outcome: "failed", description: descriptions.failed } : { ...at, outcome: "completed", description: descriptions.completed }
  return ratio > 0 ? Effect.map(ctx.outcomes.next, (draw) => plan(draw < ratio)) : Effect.succeed(plan(false))
}
