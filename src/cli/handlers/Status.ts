import { Console, Effect } from "effect"
import { PaymentClient } from "../../api/Client.ts"
import type { statusCommand } from "../commands/Status.ts"
import { userFormat } from "../../output/Format.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import type { Parsed } from "../Lazy.ts"
import { printJson } from "../Output.ts"
import { statusJson, statusView } from "../Views.ts"

export const status = ({ connection, json, reference }: Parsed<typeof statusCommand>) =>
  Effect.gen(function* () {
    if (reference.trim() === "") return yield* new UsageError({ reason: "REFERENCE is empty" })
    const client = yield* PaymentClient
    const record = yield* client.status(reference.trim())
    yield* json ? printJson(statusJson(record)) : Console.log(statusView(record, yield* userFormat))
  }).pipe(withClient(connection))
