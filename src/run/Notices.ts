/**
 * What a run tells a person while it goes, as typed facts: the pipeline emits them, the command line
 * words and renders them (src/cli/NoticeText.ts, src/cli/Notices.ts). Without a renderer they are dropped.
 */
import { Context, Data, Effect } from "effect"
import type { PhoneFindings } from "../intake/SharedPhones.ts"
import type { RowError } from "../intake/RowError.ts"
import type { Halt } from "../store/AccountModel.ts"
import type { Outcome } from "./Outcome.ts"
import type { PreflightResult } from "./Preflight.ts"
import type { ListingGap } from "./ListingGap.ts"
import type { WaitReason } from "./WaitReason.ts"

/** Where a run stands: the figures only; src/cli/Notices.ts draws them (a bar, or a plain line). */
export interface ProgressFigures {
  /** Submitting while rows are left to send; then tracking the sent rows to a final status. */
  readonly phase: "submitting" | "tracking"
  /** Rows sent of the rows to send (submitting), or sent rows final of the rows sent (tracking). */
  readonly done: number
  readonly of: number
  /** The phase's rows per second, over the last seconds; 0 when nothing moved. */
  readonly rate: number
  /** What the phase has left at that rate; undefined when the rate is 0 or nothing is left. */
  readonly etaMs: number | undefined
  readonly elapsedMs: number
  readonly completed: number
  readonly failed: number
  readonly cancelled: number
  readonly expired: number
  readonly refunded: number
  /** Sent and answered, no final status yet. */
  readonly pending: number
  readonly unknown: number
  readonly skipped: number
}

/** One fact of the run for a person; `outcome` below says which of them tell how the run ends. */
export type RunEvent = Data.TaggedEnum<{
  /** The file is refused whole: its rows' errors (`errorsFile`: where they were written, when said). */
  RowErrors: { readonly errors: ReadonlyArray<RowError>; readonly file: string; readonly errorsFile: string | undefined }
  FileRefused: { readonly dryRun: boolean; readonly errorsFile: string | undefined }
  /** --skip-invalid: rows rejected (`dryRun`: would be), the rest goes on. */
  InvalidRowsSkipped: { readonly count: number; readonly dryRun: boolean; readonly errorsFile: string | undefined }
  Resuming: { readonly batchId: string }
  OutputsUnwritable: { readonly problems: ReadonlyArray<string> }
  LeaseBusy: { readonly batchId: string; readonly holder: string | undefined }
  WebhookListening: { readonly url: string; readonly everyInterface: boolean; readonly callbackUrl: string | undefined }
  /** Stopped before sending anything; `released` rows claimed and put back. */
  InterruptedEarly: { readonly released: number }
  Interrupted: {}
  ClaimsReleased: { readonly released: number }
  ClaimsNotReleased: { readonly message: string }
  Stopped: { readonly why: string }
  BatchPaused: { readonly batchId: string; readonly why: string }
  PhoneHistory: { readonly phones: PhoneFindings }
  SharedPhonesAccepted: { readonly count: number; readonly lines: ReadonlyArray<number> }
  PreflightFailed: { readonly error: { readonly _tag: string; readonly message: string } }
  PreflightFigures: { readonly result: PreflightResult }
  /** validate's last word: whether the file would be paid whole. */
  Verdict: { readonly result: PreflightResult; readonly invalidRows: number }
  BalanceRefused: {}
  AccountAlarmInForce: { readonly since: number; readonly reason: string }
  RowsUnderAlarm: { readonly count: number }
  ForeignIntents: { readonly runner: string }
  HaltedAtStart: { readonly halt: Halt }
  BreakerTripped: { readonly operator: string; readonly run: number }
  ProbeExpired: { readonly operator: string; readonly probeMs: number; readonly first: number }
  /** The run ends with rows held by a safeguard (the batch paused) or by the account's halt. */
  PausedEnd: { readonly batchId: string; readonly reason: string; readonly waiting: number }
  HaltedEnd: { readonly halt: Halt; readonly waiting: number }
  PersonMustAct: { readonly batchId: string; readonly alarms: number; readonly accountAlarm: string | undefined }
  ReportUnwritten: { readonly error: string }
  /** The lease was taken over: a group of row updates dropped (the new runner reconciles those rows). */
  UpdatesNotWritten: { readonly count: number }
  OutputsRetrying: { readonly why: string }
  OutputsFailed: { readonly batchId: string; readonly why: string }
  /** An answer no payout of ours can have: the row under alarm, nothing stored. */
  AnomalyAlarm: { readonly batchId: string; readonly line: number; readonly reason: string }
  /** The reconciler put a row under alarm. */
  RowAlarmed: { readonly batchId: string; readonly line: number; readonly reason: string; readonly references: ReadonlyArray<string> }
  /** The pre-scan put a row under alarm before sending it (`references` shown when any). */
  PreScanAlarm: { readonly batchId: string; readonly line: number; readonly reason: string; readonly references: ReadonlyArray<string> }
  AccountAlarmRaised: { readonly batchId: string; readonly reason: string; readonly references: ReadonlyArray<string> }
  GraceRaised: { readonly fromMs: number; readonly toMs: number; readonly lagMs: number }
  Waiting: { readonly line: number; readonly reason: WaitReason; readonly until: number | undefined; readonly alarmAt: number }
  Resending: { readonly line: number; readonly token: string; readonly evidence: string }
  PreScanIncomplete: { readonly days: number; readonly first: ReadonlyArray<string> }
  AlreadyPaid: { readonly line: number; readonly reference: string; readonly status: string; readonly day: string }
  PreScanAdopted: { readonly count: number }
  ListingSpanRead: { readonly days: number; readonly payouts: number; readonly pages: number }
  ListingDaysRead: { readonly done: number; readonly of: number; readonly day: string; readonly payouts: number; readonly pages: number }
  /** The latest day whose listing claims more than can be read; `earlier` days alike from `from`. */
  ListingIncomplete: { readonly day: string; readonly gap: ListingGap; readonly earlier: number; readonly from: string }
}>

export const RunEvent = Data.taggedEnum<RunEvent>()

export type Notice =
  /** Text the command line wrote itself (src/cli). */
  | { readonly _tag: "Message"; readonly text: string }
  | RunEvent
  /** A periodic figure of the run. */
  | { readonly _tag: "Progress"; readonly figures: ProgressFigures }
  /** The run stopped reporting: a live line ends there. */
  | { readonly _tag: "ProgressEnd" }
  /**
   * How the run ended, told as it ends (Ctrl-C included, when no result reaches the caller): `payouts
   * run` closes with it (cli/Closing.ts); other renderers let it pass.
   */
  | { readonly _tag: "Ended"; readonly exitCode: number; readonly outcome: Outcome; readonly summary: Readonly<Record<string, unknown>> }

/**
 * The events that say how a run ends, which `payouts run` tells again in its closing line
 * (cli/Closing.ts): it drops them when it prints that line; `watch` and `--json` runs keep them.
 */
export const isOutcome = (notice: Notice): boolean =>
  notice._tag === "BalanceRefused" || notice._tag === "PausedEnd" || notice._tag === "HaltedEnd" || (notice._tag === "FileRefused" && !notice.dryRun)

export interface NoticeSink {
  readonly emit: (notice: Notice) => Effect.Effect<void>
}

export class Notices extends Context.Reference<Notices>()("run/Notices", {
  defaultValue: (): NoticeSink => ({ emit: () => Effect.void })
}) {}

/** A message the command line words itself (src/cli only). */
export const say = (text: string): Effect.Effect<void> => Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Message", text }))

/** A fact of the run for the person running it. */
export const tell = (event: RunEvent): Effect.Effect<void> => Effect.flatMap(Notices, (sink) => sink.emit(event))

export const progress = (figures: ProgressFigures): Effect.Effect<void> =>
  Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Progress", figures }))

export const progressEnd: Effect.Effect<void> = Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "ProgressEnd" }))

/** Tells how the run ended (see the `Ended` notice). */
export const ended = (result: { readonly exitCode: number; readonly outcome: Outcome; readonly summary: Readonly<Record<string, unknown>> }): Effect.Effect<void> =>
  Effect.flatMap(Notices, (sink) => sink.emit({ _tag: "Ended", exitCode: result.exitCode, outcome: result.outcome, summary: result.summary }))
