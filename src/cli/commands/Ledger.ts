/**
 * `payouts ledger BATCH`: writes the batch's ledger, summary and report again from the state store.
 * The command; its handler is in ../handlers/Ledger.ts (loaded on use).
 */
import { Command, Options } from "@effect/cli"
import { batchArg, jobsOption, jobsStateOption } from "../JobOptions.ts"
import { jsonOption } from "../Output.ts"
import { connectionOptions } from "../Settings.ts"

export const ledgerCommand = Command.make("ledger", {
  batch: batchArg,
  out: Options.directory("out").pipe(Options.withAlias("o"), Options.withDescription("Where to write them (default: the current folder)."), Options.withDefault(".")),
  jobs: jobsOption,
  state: jobsStateOption,
  connection: connectionOptions,
  json: jsonOption
}).pipe(Command.withDescription("Write a batch's ledger, summary and report again from the state store (e.g. after a run could not write them)."))
