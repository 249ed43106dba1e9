/**
 * Which adapter a store location opens: a `postgres://` (or `postgresql://`) URL is the shared
 * PostgreSQL store (DESIGN 12), anything else a SQLite file. A URL may carry a password: it is kept
 * Redacted, never printed, and never written to a folder's pin (which holds the URL without it).
 */
import { Effect, Layer, Redacted } from "effect"
import { maskUrlPasswords } from "../domain/Secrets.ts"
import type { StoreError } from "../store/Model.ts"
import type { StoreServices } from "../store/Sql/Store.ts"

export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location.trim())

/** The location as it may be shown or pinned: a URL without its password. */
export const withoutPassword = (location: string): string => {
  if (!isPostgresUrl(location) || !URL.canParse(location)) return location
  const url = new URL(location)
  if (url.password === "") return location
  url.password = ""
  return url.toString()
}

/** The location as it may be printed or logged: a URL's user kept, its password shown as `***`. */
export const shownLocation = (location: string): string => maskUrlPasswords(location)

/** Whether two locations name the same store (a URL with and without its password does). */
export const sameStore = (a: string, b: string): boolean => withoutPassword(a) === withoutPassword(b)

/**
 * The state store at `location`. A URL's `schema` parameter names the PostgreSQL schema holding the
 * store (default public), so one database can hold several stores: a test's, a staging account's.
 */
export const openStore = (location: string): Layer.Layer<StoreServices, StoreError> => {
  // The adapters (and the SQL packages under them) are imported when a store is opened, not by every
  // command that only names its store: `payouts validate` of a file refused at intake opens none.
  if (!isPostgresUrl(location)) return adapter(() => import("../store/SqliteStateStore.ts"), (m) => m.layer({ filename: location }))
  const text = location.trim()
  if (!URL.canParse(text)) return adapter(() => import("../store/PostgresStateStore.ts"), (m) => m.layer({ url: Redacted.make(text) }))
  const url = new URL(text)
  const schema = url.searchParams.get("schema") ?? undefined
  url.searchParams.delete("schema")
  return adapter(() => import("../store/PostgresStateStore.ts"), (m) => m.layer({ url: Redacted.make(url.toString()), ...(schema === undefined ? {} : { schema }) }))
}

const adapter = <M>(load: () => Promise<M>, layer: (module: M) => Layer.Layer<StoreServices, StoreError>): Layer.Layer<StoreServices, StoreError> =>
  Layer.unwrapEffect(Effect.map(Effect.promise(load), layer))
