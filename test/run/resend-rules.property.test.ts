/**
 * The resend rules against an adversarial but legal service (DESIGN 7, "Reconciliation never guesses"):
 * a row whose POST ended at E with no answer is never resent while the service holds its payout.
 *
 * The model replays the reconciler's loop (src/run/Reconciler.ts and syncDays in ListingMirror.ts) at
 * generated sync times: each sync reads every open day from the day before the intent to now + 1 min
 * with the real `readDay` over a fake listing of what the service shows at that time, keeps what a
 * complete read returns in a mirror (first seen kept, a day closed once read twice the same after
 * `closeAfterMs`), pushes a miss when the token is not mirrored, and builds the Evidence the way the
 * reconciler does (complete days of this sync, the token's mirrored payouts, our known payouts and
 * their mirrored entries, grace = max(configured, graceFloor(timeout, lease, p99Lag))) for the real
 * `decide`. Rounds before E (for other rows) sync too, so our payouts' lag is measured as it is live.
 *
 * Day closing: Reconciler.ts lets a day close only max(grace + request timeout + 1 min, 1 h) after it
 * ends, and trusts a closed day only if it closed after the request's end plus the grace
 * (`closeAfterGrace` here). The earlier rule, max(grace floor, 1 h), closed a day before its ambiguous
 * payout was listed within a grace over about an hour and resent the row: the regression case below
 * (`oldCloseAfter`) keeps that counterexample, found by this property.
 *
 * The service: our payouts (token, amount, answered at, created a little before) with their own listing
 * lag each, any (or never listed); a few payouts that are not ours; the ambiguous payout created or not,
 * possibly late (created up to the configured grace after E); any order, repeated references, empty and
 * short middle pages, a wrong total_pages, totals over-reported (and under-reported after the first
 * page); descriptions cut, stripped, upper-cased or missing, or amounts changed, on any subset.
 *
 * What the property assumes, and only that (DESIGN 7):
 * - The ambiguous payout is visible (created + its lag) at the latest at E + the configured grace. A
 *   payout that stays invisible longer than that in a faithful, complete listing is outside what any
 *   client can detect: the grace is the operator's statement of how late the service may list.
 * - The first page of a day's read does not under-report `total` (listing-read-server.ts).
 * - If the ambiguous payout's own listing loses its `[token]`, the listing alters at least one of our
 *   payouts answered (in the intent's day) before the POST ended: rule 2's premise that an altering
 *   listing shows on the witnesses. A listing that strips the one payout we look for and shows every
 *   other faithfully cannot be told from one without it.
 * - Our payouts were answered from the day before the intent on (older ones would never be mirrored by
 *   the reconciler's sync, count as lagging and raise the grace floor: only later decisions).
 * Replay: RESEND_SEED=<seed> RESEND_PATH=<path>; RESEND_RUNS sets the count (default 800).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { DAY_MS, dayOf, daysBetween, dayStart } from "../../src/run/ListingDays.ts"
import { readDay } from "../../src/run/ReadDay.ts"
import {
  decide,
  type Decision,
  type Evidence,
  graceFloor,
  LAG_CAP_MS,
  MAX_SKEW_MS,
  p99Lag
} from "../../src/run/ResendRules.ts"
import { withToken as describeRow } from "../../src/domain/Token.ts"
import type { KnownPayout, MirroredPayout } from "../../src/store/MirrorModel.ts"
import { fakeFetch, type Lies, type ListedRow } from "./listing-read-server.ts"

const RUNS = Number(process.env.RESEND_RUNS ?? 800)
const SEC = 1_000
const MIN = 60 * SEC
const HOUR = 60 * MIN
/** A midnight: intents fall within 8 hours of it, so days begin and close during the runs. */
const MIDNIGHT = Date.UTC(2025, 4, 21)
const ROW_TOKEN = "rowtokenaaaa"
const ROW_AMOUNT = 5000
const CURRENCY = "XAF"
const P_REF = "P-AMBIGUOUS"
/** A small page, so that a day of a few payouts takes several pages. */
const LIMIT = 3

type Mangle =
  | { readonly kind: "none" }
  | { readonly kind: "cut"; readonly length: number }
  | { readonly kind: "strip" }
  | { readonly kind: "upper" }
  | { readonly kind: "nodesc" }
  | { readonly kind: "amount"; readonly by: number }

const NONE: Mangle = { kind: "none" }

const arbMangle: fc.Arbitrary<Mangle> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(NONE) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 30 }).map((length): Mangle => ({ kind: "cut", length })) },
  { weight: 1, arbitrary: fc.constant<Mangle>({ kind: "strip" }) },
  { weight: 1, arbitrary: fc.constant<Mangle>({ kind: "upper" }) },
  { weight: 1, arbitrary: fc.constant<Mangle>({ kind: "nodesc" }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }).map((by): Mangle => ({ kind: "amount", by })) }
)

/** The listed description no longer starts with `[token]`. */
const losesToken = (m: Mangle) =>
  m.kind === "strip" || m.kind === "upper" || m.kind === "nodesc" || (m.kind === "cut" && m.length < ROW_TOKEN.length + 2)
/** The listed payout is not what we sent (rule 2's "altered"). */
const alters = (m: Mangle) => losesToken(m) || m.kind === "amount"

const shown = (m: Mangle, description: string, amountMinor: number) => ({
  description:
    m.kind === "cut"
      ? description.slice(0, m.length)
      : m.kind === "strip"
        ? description.replace(/^\[[^\]]*\] ?/, "")
        : m.kind === "upper"
          ? description.toUpperCase()
          : m.kind === "nodesc"
            ? null
            : description,
  amountMinor: m.kind === "amount" ? amountMinor + m.by : amountMinor
})

/** A listing lag: mostly short, sometimes long, sometimes never listed (null). */
const arbLag: fc.Arbitrary<number | null> = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 2 * MIN }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: HOUR }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 12 * HOUR }) },
  { weight: 1, arbitrary: fc.constant(null) }
)

const arbFraction = fc.oneof(fc.constant(0), fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true }))

const arbRaw = fc.record({
  /** The intent, around a midnight (days begin, are read twice and close during the runs). */
  intentOffset: fc.oneof(fc.integer({ min: -8 * HOUR, max: 8 * HOUR }), fc.integer({ min: -3 * HOUR, max: 0 })),
  timeout: fc.integer({ min: SEC, max: 60 * SEC }),
  postFraction: arbFraction,
  lease: fc.integer({ min: SEC, max: 2 * MIN }),
  graceCfg: fc.oneof(fc.integer({ min: MIN, max: 30 * MIN }), fc.integer({ min: 30 * MIN, max: 6 * HOUR })),
  /** The deadline: any, or (mostly) the configured grace plus some time. */
  deadline: fc.oneof(
    { weight: 1, arbitrary: fc.integer({ min: 10 * MIN, max: 20 * HOUR }).map((ms) => ({ absolute: ms })) },
    { weight: 4, arbitrary: fc.integer({ min: 10 * MIN, max: 8 * HOUR }).map((ms) => ({ afterGrace: ms })) }
  ),
  skew: fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 16, arbitrary: fc.integer({ min: -MAX_SKEW_MS, max: MAX_SKEW_MS }) },
    { weight: 1, arbitrary: fc.integer({ min: -10 * MIN, max: 10 * MIN }) }
  ),
  pExists: fc.boolean(),
  pCreated: arbFraction,
  pVisible: arbFraction,
  pMangle: arbMangle,
  /** Whether our payouts' listing lags may be long or endless (else within two minutes each). */
  wildLags: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  /** Whether the listing alters descriptions or amounts at all (each payout then draws its own mangle). */
  altering: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  ours: fc.array(
    fc.record({
      answeredOffset: fc.oneof(
        { weight: 1, arbitrary: fc.integer({ min: -DAY_MS + 2 * MIN, max: 8 * HOUR }) },
        { weight: 2, arbitrary: fc.integer({ min: -2 * HOUR, max: 0 }) },
        { weight: 2, arbitrary: fc.integer({ min: 0, max: HOUR }) }
      ),
      createLead: fc.integer({ min: 0, max: 60 * SEC }),
      lag: arbLag,
      mangle: arbMangle,
      amount: fc.integer({ min: 1, max: 1_000_000 })
    }),
    { minLength: 3, maxLength: 10 }
  ),
  foreign: fc.array(
    fc.record({
      createdOffset: fc.integer({ min: -30 * HOUR, max: 8 * HOUR }),
      lag: arbLag,
      description: fc.oneof(fc.constant(null), fc.constant("Salary"), fc.constant("[foreigntoken] x"), fc.constant(`[${ROW_TOKEN.toUpperCase()}] x`)),
      amount: fc.integer({ min: 1, max: 1_000_000 })
    }),
    { maxLength: 4 }
  ),
  /**
   * Earlier rounds for other unknown rows (before E): they sync the mirror too, so our payouts are
   * first seen soon after they are listed (the lag is measured from a sync's first sight).
   */
  preSyncs: fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 3, arbitrary: fc.constant(true) }),
  preGaps: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 48 }),
  /** Syncs from E + firstSync over a span of (a fraction of) the deadline, at uneven gaps. */
  firstSync: fc.integer({ min: 0, max: 10 * MIN }),
  span: fc.double({ min: 0.5, max: 1.3, noNaN: true }),
  gaps: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 40 }),
  lies: fc.record({
    seed: fc.integer(),
    shuffle: fc.boolean(),
    repeats: fc.boolean(),
    emptyPages: fc.boolean(),
    shortPages: fc.boolean(),
    overTotal: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    underTotal: fc.boolean(),
    wrongTotalPages: fc.boolean()
  })
})

type Raw = typeof arbRaw extends fc.Arbitrary<infer A> ? A : never

interface ServerPayout {
  readonly reference: string
  readonly token: string | null
  readonly description: string | null
  readonly amountMinor: number
  /** Our clock. */
  readonly createdAt: number
  /** Our clock; Infinity when never listed. */
  readonly visibleAt: number
}

interface Ours {
  readonly reference: string
  readonly token: string
  readonly amountMinor: number
  readonly answeredAt: number
}

interface Scenario {
  readonly intentAt: number
  readonly endedAt: number
  readonly timeout: number
  readonly lease: number
  readonly graceCfg: number
  readonly deadline: number
  readonly skew: number | undefined
  /** The ambiguous payout, when the service created it. */
  readonly p: ServerPayout | undefined
  readonly ours: ReadonlyArray<Ours>
  readonly server: ReadonlyArray<ServerPayout>
  /** Rounds before E: mirror syncs only. */
  readonly preSyncs: ReadonlyArray<number>
  /** Rounds from E on: a sync, then the decision. */
  readonly syncs: ReadonlyArray<number>
  readonly lies: Lies
}

const tokenOf = (i: number) => `our${String.fromCharCode(97 + i)}tokenaaaa`.slice(0, 12)

const scenarioOf = (raw: Raw): Scenario => {
  const intentAt = MIDNIGHT + raw.intentOffset
  const endedAt = intentAt + Math.round(raw.postFraction * raw.timeout)
  const windowStart = dayStart(dayOf(intentAt))
  const server: Array<ServerPayout> = []
  const ours: Array<Ours> = raw.ours.map((o, i) => {
    // From the day before the intent on: the reconciler syncs those days only, and a payout of ours
    // it never mirrors counts as lagging (and raises the grace), which only delays decisions.
    const answeredAt = Math.max(endedAt + o.answeredOffset, intentAt - DAY_MS + 2 * MIN)
    const createdAt = answeredAt - o.createLead
    const token = tokenOf(i)
    const reference = `O${i}`
    const lag = raw.wildLags ? o.lag : (o.lag ?? 0) % (2 * MIN)
    server.push({
      reference,
      token,
      ...shown(raw.altering ? o.mangle : NONE, describeRow(token, `Payout ${i}`), o.amount),
      createdAt,
      visibleAt: lag === null ? Infinity : createdAt + lag
    })
    return { reference, token, amountMinor: o.amount, answeredAt }
  })
  raw.foreign.forEach((f, i) => {
    const createdAt = endedAt + f.createdOffset
    server.push({
      reference: `F${i}`,
      token: null,
      description: f.description,
      amountMinor: f.amount,
      createdAt,
      visibleAt: f.lag === null ? Infinity : createdAt + f.lag
    })
  })
  // Rule 2's premise (see the header): the listing hides the ambiguous payout's token only if it
  // alters one of our payouts answered before the POST ended, in the intent's day, too.
  const witnessAltered = raw.altering && raw.ours.some((o, i) => alters(o.mangle) && ours[i].answeredAt >= windowStart && ours[i].answeredAt <= endedAt)
  const pMangle = !raw.altering || (losesToken(raw.pMangle) && !witnessAltered) ? NONE : raw.pMangle
  // The ambiguous payout: created from the intent on, up to the configured grace after E, and visible
  // by E + the configured grace at the latest (the one assumption about lag; see the header).
  const latest = endedAt + raw.graceCfg
  const pCreated = intentAt + Math.round(raw.pCreated * (latest - intentAt))
  const p: ServerPayout | undefined = raw.pExists
    ? {
        reference: P_REF,
        token: ROW_TOKEN,
        ...shown(pMangle, describeRow(ROW_TOKEN, "Payout seller"), ROW_AMOUNT),
        createdAt: pCreated,
        visibleAt: pCreated + Math.round(raw.pVisible * (latest - pCreated))
      }
    : undefined
  if (p !== undefined) server.push(p)
  const deadline = "absolute" in raw.deadline ? raw.deadline.absolute : raw.graceCfg + raw.deadline.afterGrace
  const weights = raw.gaps.reduce((a, b) => a + b, 0)
  // Earlier rounds from before our first payout to E, or none.
  const preSpan = raw.preSyncs ? endedAt - Math.min(endedAt, ...ours.map((o) => o.answeredAt)) + 10 * MIN : 0
  const preSyncs: Array<number> = []
  const preWeights = raw.preGaps.reduce((a, b) => a + b, 0)
  let pre = endedAt - preSpan
  for (const gap of raw.preGaps) {
    pre += (preSpan * gap) / preWeights
    if (pre < endedAt) preSyncs.push(Math.round(pre))
  }
  const syncs: Array<number> = []
  let t = endedAt + raw.firstSync
  syncs.push(Math.round(t))
  for (const gap of raw.gaps) {
    t += (raw.span * deadline * gap) / weights
    syncs.push(Math.round(t))
  }
  return {
    intentAt,
    endedAt,
    timeout: raw.timeout,
    lease: raw.lease,
    graceCfg: raw.graceCfg,
    deadline,
    skew: raw.skew,
    p,
    ours,
    server,
    preSyncs,
    syncs,
    lies: raw.lies
  }
}

const hashOf = (payouts: ReadonlyArray<{ reference: string; description: string | null; amountMinor: number; currency: string }>) =>
  payouts.map((p) => `${p.reference}|${p.description}|${p.amountMinor}|${p.currency}`).sort().join("\n")

/** How long after a day ends a sync may close it (syncDays' closeAfterMs). */
type CloseAfter = (floorMs: number, graceMs: number, s: Scenario) => number
/** What Reconciler.ts passes today: max(grace floor, 1 h). */
const oldCloseAfter: CloseAfter = (floorMs) => Math.max(floorMs, HOUR)
/**
 * Not before a payout created on the day can still appear under the grace: its intent is at most a
 * minute (clock skew) past the day's end, its POST ends within the request timeout, and it is visible
 * within the grace after that.
 */
const closeAfterGrace: CloseAfter = (floorMs, graceMs, s) => Math.max(floorMs, HOUR, graceMs + s.timeout + MAX_SKEW_MS)

interface Step {
  readonly at: number
  readonly complete: ReadonlyArray<string>
  readonly graceMs: number
  readonly misses: ReadonlyArray<number>
  /** The ambiguous payout was visible at this sync but no mirrored payout carries its token. */
  readonly pHidden: boolean
  readonly decision: Decision
}

interface Outcome {
  readonly decision: Decision | undefined
  readonly steps: ReadonlyArray<Step>
  /** Days closed while the ambiguous payout on them was not yet visible. */
  readonly closedEarly: boolean
}

/** The reconciler's rounds over the scenario, until a decision other than Wait. */
const replay = (s: Scenario, closeAfter: CloseAfter): Outcome => {
  const shift = s.skew ?? 0
  const serverDay = (p: ServerPayout) => dayOf(p.createdAt + shift)
  const mirror = new Map<string, MirroredPayout>()
  const days = new Map<string, { hash: string; closed: boolean; readAt: number }>()
  /** For each mirrored reference, its day's complete read before the one that first listed it. */
  const prevRead = new Map<string, number | null>()
  const misses: Array<number> = []
  const steps: Array<Step> = []
  let closedEarly = false
  const knownSince = (now: number, since: number): Array<KnownPayout> =>
    s.ours
      .filter((o) => o.answeredAt <= now && o.answeredAt >= since)
      .map((o) => ({
        reference: o.reference,
        token: o.token,
        amountMinor: o.amountMinor,
        currency: CURRENCY,
        answeredAt: o.answeredAt,
        listedAt: mirror.get(o.reference)?.firstSeenAt ?? null,
        listedPrevRead: prevRead.get(o.reference) ?? null
      }))
  /** syncDays over [fromMs, now + 1 min] (service days), as the reconciler calls it; the complete days. */
  const sync = (k: number, now: number, fromMs: number, closeAfterMs: number) => {
    const complete = new Set<string>()
    const syncFrom = Math.min(fromMs, fromMs + shift) - DAY_MS
    const syncTo = Math.max(now, now + shift) + MAX_SKEW_MS
    for (const [d, day] of daysBetween(syncFrom, syncTo).entries()) {
      const before = days.get(day)
      if (before?.closed === true) {
        complete.add(day)
        if (s.p !== undefined && serverDay(s.p) === day && !mirror.has(P_REF)) closedEarly = true
        continue
      }
      const rows: Array<ListedRow> = s.server
        .filter((p) => serverDay(p) === day && p.visibleAt <= now)
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((p) => ({
          reference: p.reference,
          description: p.description,
          amountMinor: p.amountMinor,
          currency: CURRENCY,
          createdAt: new Date(p.createdAt + shift).toISOString()
        }))
      const lies = { ...s.lies, seed: (s.lies.seed ^ Math.imul(k + 1, 0x9e3779b1) ^ Math.imul(d + 1, 0x85ebca6b)) | 0 }
      const read = Effect.runSync(readDay(fakeFetch(rows, lies, LIMIT).fetch, LIMIT))
      if (!read.complete) continue
      for (const p of read.payouts) {
        if (!prevRead.has(p.reference)) prevRead.set(p.reference, before?.readAt ?? null)
        mirror.set(p.reference, { ...p, day, firstSeenAt: mirror.get(p.reference)?.firstSeenAt ?? now })
      }
      const hash = hashOf(read.payouts)
      days.set(day, { hash, closed: dayStart(day) + DAY_MS + closeAfterMs < now && before?.hash === hash, readAt: now })
      complete.add(day)
    }
    return complete
  }
  const rounds = [...s.preSyncs.map((at) => ({ at, decides: false })), ...s.syncs.map((at) => ({ at, decides: true }))]
  for (const [k, { at: now, decides }] of rounds.entries()) {
    const lag = p99Lag(knownSince(now, now - 7 * DAY_MS), new Map([...days].map(([day, d]) => [day, d.readAt])), LAG_CAP_MS)
    const floor = graceFloor(s.timeout, s.lease, lag)
    const graceMs = Math.max(s.graceCfg, floor)
    const closeAfterMs = closeAfter(floor, graceMs, s)
    if (!decides) {
      // A round for other rows: the earliest intent is about now.
      sync(k, now, now, closeAfterMs)
      continue
    }
    const complete = sync(k, now, s.intentAt, closeAfterMs)
    // The reconciler's round
    const byToken = new Map<string, Array<MirroredPayout>>()
    const carrying = [...mirror.values()].filter((p) => p.token === ROW_TOKEN)
    if (carrying.length > 0) byToken.set(ROW_TOKEN, carrying)
    if (carrying.length === 0 && now >= s.endedAt) misses.push(now)
    const known = knownSince(now, s.intentAt - DAY_MS)
    const listed = new Map(known.flatMap((k) => (mirror.has(k.reference) ? [[k.reference, mirror.get(k.reference)!] as const] : [])))
    const evidence: Evidence = {
      now,
      completeDays: complete,
      byToken,
      known,
      listed,
      graceMs,
      deadlineMs: s.deadline,
      skewMs: s.skew,
      resendUnknown: "after"
    }
    const decision = decide(
      {
        idx: 0,
        token: ROW_TOKEN,
        amountMinor: ROW_AMOUNT,
        currency: CURRENCY,
        intentAt: s.intentAt,
        endedAt: s.endedAt,
        resends: 0,
        ownedHere: true,
        misses: [...misses]
      },
      evidence
    )
    const pHidden = s.p !== undefined && s.p.visibleAt <= now && carrying.length === 0
    steps.push({ at: now, complete: [...complete], graceMs, misses: [...misses], pHidden, decision })
    if (decision._tag !== "Wait") return { decision, steps, closedEarly }
  }
  return { decision: undefined, steps, closedEarly }
}

const iso = (ms: number) => new Date(ms).toISOString()

const explain = (s: Scenario, o: Outcome) =>
  [
    `intent ${iso(s.intentAt)}, POST ended ${iso(s.endedAt)}, grace ${s.graceCfg / MIN} min, timeout ${s.timeout} ms, lease ${s.lease} ms, skew ${s.skew}`,
    s.p === undefined ? "no ambiguous payout" : `ambiguous payout created ${iso(s.p.createdAt)}, visible ${iso(s.p.visibleAt)}, listed as ${JSON.stringify(s.p.description)} ${s.p.amountMinor}`,
    ...s.server.filter((p) => p !== s.p).map((p) => `  ${p.reference} created ${iso(p.createdAt)} visible ${Number.isFinite(p.visibleAt) ? iso(p.visibleAt) : "never"} ${JSON.stringify(p.description)}`),
    ...s.ours.map((o) => `  ours ${o.reference} answered ${iso(o.answeredAt)}`),
    ...o.steps.map((st) => `  sync ${iso(st.at)}: complete ${st.complete.join(" ")}, grace ${Math.round(st.graceMs / 1000)} s, misses ${st.misses.length} -> ${st.decision._tag}${st.pHidden ? " (payout visible, not mirrored)" : ""}`)
  ].join("\n")

interface Seen {
  cases: number
  resendAbsent: number
  adopt: number
  alarm: number
  accountAlarm: number
  undecided: number
  /** The payout exists and every rule but time held (the wait was for the grace or a second miss). */
  nearResend: number
  /** The payout was visible but no mirrored payout carried its token at a decision. */
  hidden: number
  /** A day holding the payout was closed before the mirror had it. */
  closedEarly: number
}

const property = (closeAfter: CloseAfter, seen: Seen) =>
  fc.property(arbRaw, (raw) => {
    const s = scenarioOf(raw)
    const o = replay(s, closeAfter)
    const d = o.decision
    seen.cases++
    if (d === undefined) seen.undecided++
    else if (d._tag === "Resend") seen.resendAbsent++
    else if (d._tag === "Adopt") seen.adopt++
    else if (d._tag === "Alarm") seen.alarm++
    else if (d._tag === "AccountAlarm") seen.accountAlarm++
    if (o.closedEarly) seen.closedEarly++
    if (o.steps.some((st) => st.pHidden)) seen.hidden++
    const timeOnly = (st: Step) =>
      st.decision._tag === "Wait" && (st.decision.reason._tag === "Grace" || st.decision.reason._tag === "SecondSync")
    if (s.p !== undefined && o.steps.some(timeOnly)) seen.nearResend++
    if (d?._tag === "Resend" && s.p !== undefined) throw new Error(`resent a payout the service holds:\n${explain(s, o)}`)
    // An adoption is of the ambiguous payout itself (no other payout carries its token).
    if (d?._tag === "Adopt") expect(d.payout.reference).toBe(P_REF)
  })

const newSeen = (): Seen => ({ cases: 0, resendAbsent: 0, adopt: 0, alarm: 0, accountAlarm: 0, undecided: 0, nearResend: 0, hidden: 0, closedEarly: 0 })

/**
 * The smallest case found of a day closed too early (see the known-bug test): an intent at 23:00 with a
 * 3 h grace, the service lists the payout 3 h after the POST, and the intent's day, read twice the
 * same after 01:00, is closed before that and never read again.
 */
const T = (hhmmss: string, day = "2025-05-20") => Date.parse(`${day}T${hhmmss}Z`)
const ourPayout = (i: number, answeredAt: number): { ours: Ours; server: ServerPayout } => ({
  ours: { reference: `O${i}`, token: tokenOf(i), amountMinor: 100 + i, answeredAt },
  server: {
    reference: `O${i}`,
    token: tokenOf(i),
    description: describeRow(tokenOf(i), `Payout ${i}`),
    amountMinor: 100 + i,
    createdAt: answeredAt - SEC,
    visibleAt: answeredAt + 10 * SEC
  }
})
const witnesses = [ourPayout(0, T("22:50:00")), ourPayout(1, T("22:55:00")), ourPayout(2, T("23:10:00"))]
const ambiguous: ServerPayout = {
  reference: P_REF,
  token: ROW_TOKEN,
  description: describeRow(ROW_TOKEN, "Payout seller"),
  amountMinor: ROW_AMOUNT,
  createdAt: T("23:00:10"),
  // E + 2 h 59 min 30 s: within the configured 3 h grace.
  visibleAt: T("02:00:00", "2025-05-21")
}
const closedTooEarly: Scenario = {
  intentAt: T("23:00:00"),
  endedAt: T("23:00:30"),
  timeout: 30 * SEC,
  lease: 30 * SEC,
  graceCfg: 3 * HOUR,
  deadline: 4 * HOUR,
  skew: 0,
  p: ambiguous,
  ours: witnesses.map((w) => w.ours),
  server: [...witnesses.map((w) => w.server), ambiguous],
  preSyncs: [],
  syncs: [T("23:05:00"), T("23:15:00"), T("00:30:00", "2025-05-21"), T("01:05:00", "2025-05-21"), T("01:10:00", "2025-05-21"), T("02:05:00", "2025-05-21")],
  lies: { seed: 1, shuffle: false, repeats: false, emptyPages: false, shortPages: false, overTotal: false, underTotal: false, wrongTotalPages: false }
}

describe("resend rules against an adversarial, legal listing", () => {
  // RESEND_CLOSE=old runs the property with the earlier closing rule, and finds its bug.
  const old = process.env.RESEND_CLOSE === "old"
  it(`never resends a payout the service holds (${RUNS} runs, days closed ${old ? "by the old rule" : "as Reconciler.ts does: after the grace"})`, () => {
    const seen = newSeen()
    fc.assert(property(old ? oldCloseAfter : closeAfterGrace, seen), {
      numRuns: RUNS,
      ...(process.env.RESEND_SEED === undefined ? {} : { seed: Number(process.env.RESEND_SEED) }),
      ...(process.env.RESEND_PATH === undefined ? {} : { path: process.env.RESEND_PATH })
    })
    console.log(`resend property: ${JSON.stringify(seen)}`)
    // Not vacuous: resends happen when the payout does not exist, and existing payouts regularly get
    // as far as every rule but time, or visible on the service but not in the mirror.
    expect(seen.resendAbsent).toBeGreaterThan(RUNS / 50)
    expect(seen.nearResend).toBeGreaterThan(RUNS / 50)
    expect(seen.hidden).toBeGreaterThan(RUNS / 50)
    expect(seen.adopt).toBeGreaterThan(RUNS / 10)
  })

  it("the same case with the day kept open until the grace has passed: adopted", () => {
    const o = replay(closedTooEarly, closeAfterGrace)
    expect(o.closedEarly).toBe(false)
    expect(o.decision).toMatchObject({ _tag: "Adopt", payout: { reference: P_REF } })
    expect(o.steps.map((st) => st.decision._tag)).toEqual(["Wait", "Wait", "Wait", "Wait", "Wait", "Adopt"])
  })

  it("regression: with the old rule (close after max(floor, 1 h)) the day closes early and every rule holds at 02:05", () => {
    const o = replay(closedTooEarly, oldCloseAfter)
    expect(o.decision?._tag).toBe("Resend")
    const last = o.steps[o.steps.length - 1]
    expect(last.pHidden).toBe(true)
    expect(last.complete).toEqual(["2025-05-19", "2025-05-20", "2025-05-21"])
    expect(last.graceMs).toBe(3 * HOUR)
  })
})
