/**
 * `payouts ledger BATCH`: writes the batch's ledger, summary and report again from the state store,
 * at any time (issue 12, item 5): after a run could not write them (a full disk, a folder gone), or
 * to give finance a fresh copy. The store is the record; these files are views of it.
 */
import { FileSystem } from "@effect/platform"
import { Console, DateTime, Effect } from "effect"
import { resolve } from "node:path"
import { retryLineage } from "../../intake/RetryLineage.ts"
import { exitCodeFor } from "../../run/ExitCode.ts"
import { outputPaths } from "../../output/AtomicFile.ts"
import { makeSummary, totalsByCurrency, writeLedgerFromStore, writeSummaryFile } from "../../output/Outputs.ts"
import { reportPath, writeReport } from "../../output/Report.ts"
import { alreadyPaidOf, withAlreadyPaid } from "../../output/AlreadyPaid.ts"
import { DEFAULT_FEE_ESTIMATE } from "../../domain/FeeEstimate.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import { MirrorStore } from "../../store/Sql/Mirror.ts"
import type { ledgerCommand } from "../commands/Ledger.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { storeLayer } from "../StoreLocation.ts"
import { printJson } from "../Output.ts"

export const ledger = ({ batch, connection, jobs, json, out, state }: Parsed<typeof ledgerCommand>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const account = yield* accountOf(connection)
    const found = yield* findBatch(account, batch)
    yield* fs.makeDirectory(out, { recursive: true })
    const paths = outputPaths(resolve(out, found.fileName))
    const counts = yield* (yield* Batches).countByState(account, found.batchId)
    const flagged = yield* (yield* MirrorStore).flaggedRows(account, found.batchId)
    const alarms = flagged.filter((r) => r.alarm !== null).map((r) => ({ line: r.line, reason: r.alarm ?? "", references: r.candidates ?? [] }))
    const { parent } = yield* retryLineage(account, found.batchId)
    const written = yield* makeSummary({
      batchId: found.batchId,
      file: found.fileName,
      startedAt: DateTime.toEpochMillis(found.createdAt),
      counts,
      totals: yield* totalsByCurrency(account, found.batchId),
      exitCode: alarms.length > 0 ? 5 : exitCodeFor(counts, false),
      outcome: "written again from the state store (payouts ledger)",
      alarms,
      // A retry's link to its parent is in the store (not in the rows): kept, as the run's summary has it.
      extra: { ledger: paths.ledger, report: reportPath(paths), batch_state: found.state, ...(parent === undefined ? {} : { parent }) }
    })
    // Payouts adopted from the listing were made outside this store: never counted as this batch's.
    const summary = withAlreadyPaid(written, yield* alreadyPaidOf(account, found.batchId, undefined, DEFAULT_FEE_ESTIMATE))
    yield* writeLedgerFromStore(paths, account, found.batchId)
    yield* writeSummaryFile(paths, summary)
    yield* writeReport(reportPath(paths), account, found.batchId, summary)
    if (json) yield* printJson({ batch_id: found.batchId, ledger: paths.ledger, summary: paths.summary, report: reportPath(paths) })
    else yield* Console.log(`Batch ${found.batchId}:\n  ledger  ${paths.ledger}\n  summary ${paths.summary}\n  report  ${reportPath(paths)}`)
  }).pipe(Effect.provide(storeLayer(state, jobs)))
