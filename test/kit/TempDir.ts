/** The one temp-dir helper of the tests. */
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A fresh directory, kept after the test so a failure's files can still be read. */
export const tempDir = (prefix = "payouts-"): string => mkdtempSync(join(tmpdir(), prefix))

/** A fresh directory removed when the test's scope closes. */
export const scopedTempDir = (prefix = "payouts-") =>
  Effect.acquireRelease(
    Effect.sync(() => tempDir(prefix)),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** `use` given a fresh directory, removed afterwards whatever `use` does (for plain synchronous tests). */
export const withTempDir = <A>(prefix: string, use: (dir: string) => A): A => {
  const dir = tempDir(prefix)
  try {
    return use(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
