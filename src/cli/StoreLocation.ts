/**
 * One store, found the same way from anywhere (DESIGN 7). The default for every command is per user:
 * `$XDG_STATE_HOME/payouts/payouts.db`, else `~/.local/state/payouts/payouts.db`. `--state` /
 * `PAYOUTS_STATE` names another. `watch DIR` pins its store in `DIR/.state/store` and refuses to start
 * with another; any command given a file (or jobs folder) under a watched folder uses that folder's
 * store. A folder watched before pins existed keeps its `DIR/.state/payouts.db`. SQLite on a network
 * filesystem is refused: its locks are not reliable there.
 */
import { Config, Console, Effect, Layer, Option } from "effect"
import { existsSync, mkdirSync, readFileSync, statfsSync, statSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { UsageError } from "./Errors.ts"
import { isPostgresUrl, openStore, sameStore, shownLocation, withoutPassword } from "./StoreOpen.ts"

export const defaultStorePath = (env: { readonly XDG_STATE_HOME?: string | undefined }): string => {
  const base = env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME.trim() !== "" ? env.XDG_STATE_HOME : join(homedir(), ".local", "state")
  return resolve(base, "payouts", "payouts.db")
}

/** The per-user default, with `XDG_STATE_HOME` read as a setting. */
const userDefault = Effect.map(
  Effect.orElseSucceed(Config.option(Config.string("XDG_STATE_HOME")), () => Option.none<string>()),
  (xdg) => defaultStorePath({ XDG_STATE_HOME: Option.getOrUndefined(xdg) })
)

export const pinFile = (dir: string) => join(dir, ".state", "store")
const legacyStore = (dir: string) => join(dir, ".state", "payouts.db")

/** The store pinned by `dir` itself (its pin file, or a store a pre-pin watcher left there). */
const pinnedBy = (dir: string): string | undefined => {
  const pin = pinFile(dir)
  if (existsSync(pin)) {
    const named = readFileSync(pin, "utf8").trim()
    if (named !== "") return isAbsolute(named) || isPostgresUrl(named) ? named : resolve(dir, named)
  }
  return existsSync(legacyStore(dir)) ? resolve(legacyStore(dir)) : undefined
}

/** The watched folder holding `path` (a file or folder), walking up, and its store. */
export const watchedFolderOf = (path: string): { readonly dir: string; readonly store: string } | undefined => {
  let dir = resolve(path)
  if (!existsSync(dir) || !isDirectory(dir)) dir = dirname(dir)
  for (;;) {
    // A job's file sits in DIR or DIR/processing, done, ...: the first folder with a pin holds it.
    const store = pinnedBy(dir)
    if (store !== undefined) return { dir, store }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Filesystem magic numbers (statfs f_type) where SQLite's locking cannot be trusted. */
const NETWORK_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, "NFS"],
  [0x517b, "SMB"],
  [0xff534d42, "CIFS"],
  [0xfe534d42, "SMB2"],
  [0x01021997, "9P"],
  [0x5346414f, "AFS"],
  [0x00c36400, "CephFS"],
  [0x65735546, "FUSE (e.g. sshfs)"],
  [0x47504653, "GPFS"],
  [0x0bd00bd0, "Lustre"]
])

export const networkFilesystemOf = (dir: string): string | undefined => {
  try {
    return NETWORK_FILESYSTEMS.get(Number(statfsSync(dir).type))
  } catch {
    return undefined
  }
}

const explicitOf = (state: Option.Option<string>) =>
  Option.map(
    Option.filter(Option.map(state, (s) => s.trim()), (s) => s !== ""),
    (s) => (isPostgresUrl(s) ? s : resolve(s))
  )

const checkLocal = (store: string) =>
  Effect.gen(function* () {
    if (isPostgresUrl(store)) return store
    const dir = dirname(store)
    yield* Effect.try({
      try: () => mkdirSync(dir, { recursive: true, mode: 0o700 }),
      catch: (e) => new UsageError({ reason: `cannot create the state store's folder ${dir}: ${String(e)}` })
    })
    const network = networkFilesystemOf(dir)
    if (network !== undefined) {
      return yield* new UsageError({
        reason: `the state store ${store} is on a network filesystem (${network}): SQLite's locks are not reliable there; put it on a local disk (--state), or share a PostgreSQL store between machines`
      })
    }
    return store
  })

/**
 * The store of a command about `path` (a batch file or a jobs folder), or of a command about no path.
 * A watched folder's store wins; naming another with --state is refused rather than split history.
 */
export const storeFor = (state: Option.Option<string>, path?: string) =>
  Effect.gen(function* () {
    const explicit = explicitOf(state)
    const watched = path === undefined ? undefined : watchedFolderOf(path)
    if (watched !== undefined && Option.isSome(explicit) && !sameStore(explicit.value, watched.store)) {
      return yield* new UsageError({
        reason: `${path} is under the watched folder ${watched.dir}, whose store is ${shownLocation(watched.store)}; --state / PAYOUTS_STATE names ${shownLocation(explicit.value)}. Use that store (or move the file out of the folder).`
      })
    }
    // The explicit location wins when it is the pinned one: it may carry the password the pin leaves out.
    const store = Option.isSome(explicit) ? explicit.value : (watched?.store ?? (yield* userDefault))
    return yield* checkLocal(store)
  })

/** `watch DIR`: the folder's pinned store, pinning it on first use; another one is refused. */
export const storeForWatch = (state: Option.Option<string>, dir: string) =>
  Effect.gen(function* () {
    const explicit = explicitOf(state)
    const pinned = pinnedBy(resolve(dir))
    if (pinned !== undefined) {
      if (Option.isSome(explicit) && !sameStore(explicit.value, pinned)) {
        return yield* new UsageError({
          reason: `${dir} is pinned to the store ${shownLocation(pinned)} (${pinFile(dir)}); refusing to watch it with ${shownLocation(explicit.value)}. To move the store, see docs/configuration.md ("Moving an existing store").`
        })
      }
      return yield* checkLocal(Option.isSome(explicit) ? explicit.value : pinned)
    }
    const store = yield* checkLocal(Option.isSome(explicit) ? explicit.value : yield* userDefault)
    yield* Effect.try({
      try: () => {
        mkdirSync(dirname(pinFile(dir)), { recursive: true, mode: 0o700 })
        writeFileSync(pinFile(dir), `${withoutPassword(store)}\n`, { mode: 0o600 })
      },
      catch: (e) => new UsageError({ reason: `cannot pin the store in ${pinFile(dir)}: ${String(e)}` })
    })
    return store
  })

export const announceStore = (store: string) => Console.error(`State store: ${shownLocation(store)}`)

/** The state store layer of a command about `path`, announced on stderr. */
export const storeLayer = (state: Option.Option<string>, path?: string) =>
  Layer.unwrapEffect(
    Effect.map(storeFor(state, path), openStore)
  )
