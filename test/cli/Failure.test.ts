import { describe, expect, it } from "@effect/vitest"
import type { Exit } from "effect"
import { Effect } from "effect"
import * as Api from "../../src/api/Errors.ts"
import { UsageError } from "../../src/cli/Errors.ts"
import { describe as describeFailure, Exiting, report, teardown } from "../../src/cli/Failure.ts"
import { SandboxStartError } from "../../src/sandbox/Sandbox.ts"
import { SystemError } from "@effect/platform/Error"
import { StoreError } from "../../src/store/Model.ts"

describe("describe(failure)", () => {
  it("gives each failure one line and its exit code", () => {
    const cases: Array<[unknown, string, number]> = [
      [
        new Api.AuthError({ message: "Invalid credentials" }),
        "the service refused the credentials (401: Invalid credentials). Check the API key and secret in use (--api-key / PAYOUTS_API_KEY, --api-secret / PAYOUTS_API_SECRET) and that they belong to this service (--base-url / PAYOUTS_BASE_URL).",
        2
      ],
      [
        new Api.ValidationError({
          message: "The given data was invalid.",
          errors: { from_date: ["The from_date must be in YYYY-MM-DD format."], limit: ["too big", "not a number"] }
        }),
        "the service refused the request: from_date: The from_date must be in YYYY-MM-DD format., limit: too big; not a number",
        1
      ],
      [new Api.ValidationError({ message: "Nope.", errors: {} }), "the service refused the request: Nope.", 1],
      [new Api.NotFound({ message: "Transaction not found", reference: "TXN1" }), "not found: no transaction has the reference TXN1", 1],
      [new Api.RateLimited({ retryAfterMs: 2500 }), "the service is rate limiting this account (retry after 3s): try again later", 3],
      [
        new Api.Unavailable({ reason: "HTTP 503", status: 503 }),
        "the service is unavailable: HTTP 503; try again later",
        3
      ],
      [
        new Api.Unavailable({ reason: "could not connect (ECONNREFUSED)" }),
        "cannot reach the service: could not connect (ECONNREFUSED) (check PAYOUTS_BASE_URL, or try again later)",
        3
      ],
      [new Api.UnexpectedResponse({ status: 200, excerpt: "<html>" }), "the service answered unexpectedly (HTTP 200): <html>", 1],
      [new UsageError({ reason: "--page and --all cannot be used together" }), "--page and --all cannot be used together", 2],
      [
        new SandboxStartError({ message: "cannot listen: EADDRINUSE" }),
        "cannot start the sandbox: cannot listen: EADDRINUSE",
        2
      ]
    ]
    for (const [error, message, code] of cases) expect(describeFailure(error)).toEqual({ message, code })
  })

  it("a file we cannot write, or a state store that cannot be used, is exit 4 naming the path and the cause", () => {
    const full = new SystemError({ reason: "Unknown", module: "FileSystem", method: "writeAll", pathOrDescriptor: "/out/x.ledger.csv", description: "ENOSPC: no space left on device" })
    expect(describeFailure(full)).toEqual({ message: "disk full writing /out/x.ledger.csv", code: 4 })
    const denied = new SystemError({ reason: "PermissionDenied", module: "FileSystem", method: "open", pathOrDescriptor: "/out/x.summary.json" })
    expect(describeFailure(denied)).toEqual({ message: "no permission to write /out/x.summary.json", code: 4 })
    const corrupt = new StoreError({ reason: "Unavailable", message: "the state store at /s/p.db is not a valid database (SQLITE_NOTADB)" })
    expect(describeFailure(corrupt)).toEqual({ message: "the state store at /s/p.db is not a valid database (SQLITE_NOTADB)", code: 4 })
  })

  const codeOf = (exit: Exit.Exit<unknown, unknown>) => {
    let code = -1
    teardown(exit, (c) => (code = c))
    return code
  }

  it.effect("report turns failures into exit codes; Exiting passes through; interruption is a clean stop", () =>
    Effect.gen(function* () {
      expect(codeOf(yield* Effect.exit(report(Effect.void)))).toBe(0)
      expect(codeOf(yield* Effect.exit(report(Effect.fail(new Api.NotFound({ message: "x", reference: "TXN1" })))))).toBe(1)
      expect(codeOf(yield* Effect.exit(report(Effect.fail(new Api.AuthError({ message: "x" })))))).toBe(2)
      expect(codeOf(yield* Effect.exit(report(Effect.fail(new Exiting({ code: 3 })))))).toBe(3)
      // A defect is ours, not the service's: exit 4 (internal failure), never 1 ("finished").
      expect(codeOf(yield* Effect.exit(report(Effect.die("boom"))))).toBe(4)
      expect(codeOf(yield* Effect.exit(report(Effect.interrupt)))).toBe(0)
    }))
})
