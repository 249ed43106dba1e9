/**
 * `payouts reconcile BATCH`: checks the batch against the service (src/run/ReconcileBatch), updates
 * the store, rewrites the ledger, summary and report it finds in the job folder (or `--ledger`), and
 * exits 1 on any disagreement.
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect, Option } from "effect"
import { join } from "node:path"
import { checkAccount } from "../../run/AccountCheck.ts"
import { EXIT_ATTENTION } from "../../run/ExitCode.ts"
import { writeLedgerFromStore } from "../../output/Outputs.ts"
import { userFormat } from "../../output/Format.ts"
import { writeReport } from "../../output/Report.ts"
import { amendSummary, readSummary } from "../../output/SummaryFile.ts"
import { jobFolder } from "../../jobs/JobFolder.ts"
import { outputOf } from "../../output/AtomicFile.ts"
import { reconcileBatch, reconciledAt } from "../../run/ReconcileBatch.ts"
import { Batches } from "../../store/Sql/Batches.ts"
import type { reconcileCommand } from "../commands/Reconcile.ts"
import { withClient } from "../Connect.ts"
import { UsageError } from "../Errors.ts"
import { Exiting } from "../Failure.ts"
import { accountOf, findBatch } from "../Jobs.ts"
import type { Parsed } from "../Lazy.ts"
import { storeLayer } from "../StoreLocation.ts"
import { printJson } from "../Output.ts"
import { accountReportJson, describeAccountReport, describeReport, reportJson } from "../ReconcileText.ts"
import type { BatchId } from "../../domain/Ids.ts"

/** The summary file of the batch in the job folder (done/, processing/, rejected/), if any. */
const findSummary = (jobs: string, batchId: BatchId) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const folder = jobFolder(jobs)
    for (const dir of [folder.done, folder.processing, folder.rejected, folder.root]) {
      const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed((): Array<string> => []))
      for (const name of names.filter((n) => n.endsWith(".summary.json")).sort()) {
        const summary = yield* readSummary(join(dir, name)).pipe(Effect.option)
        if (Option.isSome(summary) && summary.value.batch_id === batchId) return Option.some(join(dir, name))
      }
    }
    return Option.none<string>()
  })

export const reconcile = ({ account: wholeAccount, batch: batchOption, connection, jobs, json, ledger, state }: Parsed<typeof reconcileCommand>) =>
  Effect.gen(function* () {
    const batches = yield* Batches
    const account = yield* accountOf(connection)
    if (wholeAccount) {
      const report = yield* checkAccount(account)
      yield* json ? printJson(accountReportJson(report)) : Console.log(describeAccountReport(report, yield* userFormat))
      if (!report.ok) return yield* new Exiting({ code: EXIT_ATTENTION })
      return
    }
    if (Option.isNone(batchOption)) return yield* new UsageError({ reason: "give a BATCH id, or --account to check the whole account" })
    const batch = batchOption.value
    const found = yield* findBatch(account, batch)
    const report = yield* reconcileBatch(account, found.batchId)
    const summaryPath = Option.isSome(ledger)
      ? Option.some(ledger.value.replace(/\.ledger\.csv$/, ".summary.json"))
      : yield* findSummary(jobs, found.batchId)
    const fs = yield* FileSystem.FileSystem
    if (Option.isSome(summaryPath) && (yield* fs.exists(summaryPath.value))) {
      const csv = summaryPath.value.replace(/\.summary\.json$/, ".csv")
      const paths = { ledger: outputOf(csv, ".ledger.csv"), summary: summaryPath.value, errors: outputOf(csv, ".errors.csv") }
      yield* writeLedgerFromStore(paths, account, found.batchId)
      yield* amendSummary(summaryPath.value, {
        counts: Object.fromEntries(Object.entries(yield* batches.countByState(account, found.batchId)).filter(([, n]) => n > 0)),
        reconciliation: { at: yield* reconciledAt, ok: report.ok, findings: report.findings.length, updated: report.updated, totals: report.totals }
      })
      yield* writeReport(outputOf(csv, ".report.html"), account, found.batchId, yield* readSummary(summaryPath.value))
      if (!json) yield* Console.error(`Ledger rewritten: ${paths.ledger}`)
    } else if (report.updated > 0 && !json) {
      yield* Console.error("No ledger found to rewrite (give --ledger FILE); the state store is updated.")
    }
    yield* json ? printJson(reportJson(report)) : Console.log(describeReport(report, yield* userFormat))
    if (!report.ok) return yield* new Exiting({ code: 1 })
  }).pipe(withClient(connection), Effect.provide(storeLayer(state, jobs)))
