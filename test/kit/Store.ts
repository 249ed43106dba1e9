/**
 * The tests' view of a store: its narrow services (src/store/Sql/Store.ts) bound into a batch handle
 * (`store.batch(accountId, batchId)`) and an account handle, so a test sets up and checks rows in one
 * line. The program itself asks for the narrow services it calls.
 */
import { Context, Effect, Layer, type Option, type Stream } from "effect"
import type { AccountId, BatchId } from "../../src/domain/Ids.ts"
import type { NewBatch, RowInput, StoreError, Batch } from "../../src/store/Model.ts"
import type { StoreServices } from "../../src/store/Sql/Store.ts"
import { AccountRecords } from "../../src/store/Sql/Account.ts"
import { Batches } from "../../src/store/Sql/Batches.ts"
import { Claims } from "../../src/store/Sql/Claims.ts"
import { MirrorStore } from "../../src/store/Sql/Mirror.ts"
import { Registers } from "../../src/store/Sql/Registers.ts"
import { RetryLinks } from "../../src/store/Sql/Retries.ts"
import { Rows } from "../../src/store/Sql/Reads.ts"
import type { StoreDriver } from "../../src/store/StoreDriver.ts"

/** Drops the leading (accountId, batchId) of a driver operation. */
type OnBatch<F> = F extends (accountId: AccountId, batchId: BatchId, ...rest: infer A) => infer R ? (...rest: A) => R : never
/** Drops the leading accountId of a driver operation. */
type OnAccount<F> = F extends (accountId: AccountId, ...rest: infer A) => infer R ? (...rest: A) => R : never

type BatchOperation = Extract<
  keyof StoreDriver,
  | "getBatch"
  | "deleteBatch"
  | "setBatchState"
  | "acquireLease"
  | "renewLease"
  | "releaseLease"
  | "claimRows"
  | "claimForResend"
  | "releaseRows"
  | "recordTransition"
  | "recordTransitions"
  | "getRow"
  | "rowsInStates"
  | "listedRows"
  | "streamRowsInStates"
  | "streamRows"
  | "countByState"
  | "currencyTotals"
  | "streamPending"
  | "earliestIntent"
  | "events"
  | "setRowAlarm"
  | "flaggedRows"
  | "releaseIntents"
  | "adoptIntents"
  | "recordApproval"
>

type AccountOperation = Extract<
  keyof StoreDriver,
  | "listBatches"
  | "findRowByReference"
  | "findRowByToken"
  | "mirrorDays"
  | "saveDayReads"
  | "mirrorByTokens"
  | "mirrorByReferences"
  | "mirrorOfDays"
  | "knownPayouts"
  | "accountAlarm"
  | "raiseAccountAlarm"
  | "clearAccountAlarm"
  | "activeHalt"
  | "haltAccount"
  | "liftHalt"
  | "sentTotalsSince"
  | "phonePayoutsSince"
  | "registers"
  | "linkRetry"
  | "retryLinks"
  | "linkRetryRows"
  | "rowRetries"
>

/** The operations on one batch of one account. */
export type BatchStore = { readonly [K in BatchOperation]: OnBatch<StoreDriver[K]> } & {
  readonly accountId: AccountId
  readonly batchId: BatchId
  /** Rows of the account's other batches with one of these merchant ids (rejected rows excluded). */
  readonly existingIds: (ids: ReadonlyArray<string>) => ReturnType<StoreDriver["existingIds"]>
  /** Rows of the account's other batches with one of these repeat keys, created or claimed since `since`. */
  readonly recentRepeats: (
    repeatKeys: ReadonlyArray<string>,
    since: Parameters<StoreDriver["recentRepeats"]>[2]
  ) => ReturnType<StoreDriver["recentRepeats"]>
  /** Rows of the account's other batches that sent to one of these phones, with their names. */
  readonly phoneRecipients: (phones: ReadonlyArray<string>) => ReturnType<StoreDriver["phoneRecipients"]>
}

/** The operations on one account: its payouts by reference or token, its listing mirror, alarms and halts. */
export type AccountStore = { readonly [K in AccountOperation]: OnAccount<StoreDriver[K]> } & {
  readonly accountId: AccountId
  readonly modifyRegister: <A>(
    name: string,
    change: (value: Option.Option<string>, nowMs: number) => readonly [A, Option.Option<string>]
  ) => Effect.Effect<A, StoreError>
}

export interface StateStoreShape {
  /** Idempotent: an existing batch is returned unchanged and `rows` is not read (resume). */
  readonly createBatch: <E = never, R = never>(
    batch: NewBatch & { readonly accountId: AccountId; readonly batchId: BatchId },
    rows: Iterable<RowInput> | Stream.Stream<RowInput, E, R>
  ) => Effect.Effect<Batch, StoreError | E, R>
  readonly batch: (accountId: AccountId, batchId: BatchId) => BatchStore
  readonly account: (accountId: AccountId) => AccountStore
}

export class StateStore extends Context.Tag("test/StateStore")<StateStore, StateStoreShape>() {}

const bindBatch = (d: StoreDriver, a: AccountId, b: BatchId): BatchStore => ({
  accountId: a,
  batchId: b,
  getBatch: () => d.getBatch(a, b),
  deleteBatch: () => d.deleteBatch(a, b),
  setBatchState: (state, pauseReason) => d.setBatchState(a, b, state, pauseReason),
  acquireLease: (owner, ttl) => d.acquireLease(a, b, owner, ttl),
  renewLease: (fence, ttl) => d.renewLease(a, b, fence, ttl),
  releaseLease: (owner) => d.releaseLease(a, b, owner),
  claimRows: (selection) => d.claimRows(a, b, selection),
  claimForResend: (idxs, detail, fence) => d.claimForResend(a, b, idxs, detail, fence),
  releaseRows: (idxs, detail, owner) => d.releaseRows(a, b, idxs, detail, owner),
  recordTransition: (transition, fence) => d.recordTransition(a, b, transition, fence),
  recordTransitions: (transitions, fence) => d.recordTransitions(a, b, transitions, fence),
  getRow: (idx) => d.getRow(a, b, idx),
  rowsInStates: (states, page) => d.rowsInStates(a, b, states, page),
  listedRows: (state) => d.listedRows(a, b, state),
  streamRowsInStates: (states, pageSize) => d.streamRowsInStates(a, b, states, pageSize),
  streamRows: (pageSize) => d.streamRows(a, b, pageSize),
  countByState: () => d.countByState(a, b),
  currencyTotals: () => d.currencyTotals(a, b),
  streamPending: () => d.streamPending(a, b),
  earliestIntent: () => d.earliestIntent(a, b),
  events: (idx) => d.events(a, b, idx),
  setRowAlarm: (idx, alarm, candidates) => d.setRowAlarm(a, b, idx, alarm, candidates),
  flaggedRows: () => d.flaggedRows(a, b),
  releaseIntents: (owner) => d.releaseIntents(a, b, owner),
  adoptIntents: (from, to) => d.adoptIntents(a, b, from, to),
  recordApproval: (approval) => d.recordApproval(a, b, approval),
  existingIds: (ids) => d.existingIds(a, ids, b),
  recentRepeats: (keys, since) => d.recentRepeats(a, keys, since, b),
  phoneRecipients: (phones) => d.phoneRecipients(a, phones, b)
})

const bindAccount = (d: StoreDriver, a: AccountId): AccountStore => ({
  accountId: a,
  listBatches: () => d.listBatches(a),
  findRowByReference: (reference) => d.findRowByReference(a, reference),
  findRowByToken: (token) => d.findRowByToken(a, token),
  mirrorDays: (days) => d.mirrorDays(a, days),
  saveDayReads: (reads) => d.saveDayReads(a, reads),
  mirrorByTokens: (tokens) => d.mirrorByTokens(a, tokens),
  mirrorByReferences: (references) => d.mirrorByReferences(a, references),
  mirrorOfDays: (fromDay, toDay) => d.mirrorOfDays(a, fromDay, toDay),
  knownPayouts: (since) => d.knownPayouts(a, since),
  accountAlarm: () => d.accountAlarm(a),
  raiseAccountAlarm: (reason, at) => d.raiseAccountAlarm(a, reason, at),
  clearAccountAlarm: (by, why, at) => d.clearAccountAlarm(a, by, why, at),
  activeHalt: () => d.activeHalt(a),
  haltAccount: (halt) => d.haltAccount(a, halt),
  liftHalt: (by, at, reason) => d.liftHalt(a, by, at, reason),
  sentTotalsSince: (since) => d.sentTotalsSince(a, since),
  phonePayoutsSince: (phones, since) => d.phonePayoutsSince(a, phones, since),
  modifyRegister: (name, change) => d.modifyRegister(a, name, change),
  registers: (prefix) => d.registers(a, prefix),
  linkRetry: (link) => d.linkRetry(a, link),
  retryLinks: () => d.retryLinks(a),
  linkRetryRows: (request) => d.linkRetryRows(a, request),
  rowRetries: (batchId) => d.rowRetries(a, batchId)
})

/** The handles over an adapter's flat operations. */
export const fromDriver = (driver: StoreDriver): StateStoreShape => ({
  createBatch: driver.createBatch,
  batch: (accountId, batchId) => bindBatch(driver, accountId, batchId),
  account: (accountId) => bindAccount(driver, accountId)
})

/** The handles over a built store's services. */
export const handlesOf = (services: Context.Context<StoreServices>): StateStoreShape =>
  fromDriver({
    ...Context.get(services, Batches),
    ...Context.get(services, Claims),
    ...Context.get(services, Rows),
    ...Context.get(services, MirrorStore),
    ...Context.get(services, AccountRecords),
    ...Context.get(services, Registers),
    ...Context.get(services, RetryLinks)
  })

/** The handles over the store's services in context. */
export const storeHandles = Layer.effect(StateStore, Effect.map(Effect.context<StoreServices>(), handlesOf))

/** A store layer with the handles beside its services. */
export const withHandles = <E, R>(store: Layer.Layer<StoreServices, E, R>): Layer.Layer<StoreServices | StateStore, E, R> =>
  Layer.provideMerge(storeHandles, store)
