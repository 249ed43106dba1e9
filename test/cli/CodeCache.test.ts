/**
 * dist/ as `npm run build` writes it (scripts/bundle/): chunks run from function bodies with a V8 code
 * cache made at build time. The cache only saves time: V8 takes it from the Node that built it, and a
 * start whose cache is refused (another Node, other V8 flags, a damaged file) or missing says the same.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { cpSync, readdirSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { withTempDir } from "../kit/TempDir.ts"

const DIST = fileURLToPath(new URL("../../dist", import.meta.url))
const BODIES = fileURLToPath(new URL("../../scripts/bundle/bodies.mjs", import.meta.url))

const node = (args: ReadonlyArray<string>) => {
  const ran = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })
  return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr }
}

/** How many of the bodies in `dist` compile with their cache refused, as the Node given these flags sees it. */
const refused = (dist: string, flags: ReadonlyArray<string> = []) => {
  const script = [
    `import { compileBody } from ${JSON.stringify(join(dist, "load.cjs"))}`,
    `import { readdirSync } from "node:fs"`,
    `import { pathToFileURL } from "node:url"`,
    `const bodies = readdirSync(${JSON.stringify(dist)}).filter((f) => f.endsWith(".js") && f !== "main.js")`,
    `const refused = bodies.filter((f) => compileBody(pathToFileURL(${JSON.stringify(dist + "/")} + f)).rejected)`,
    `console.log(JSON.stringify({ bodies: bodies.length, refused: refused.length }))`
  ].join("\n")
  const ran = node([...flags, "--input-type=module", "-e", script])
  expect(ran.stderr).toBe("")
  return JSON.parse(ran.stdout) as { bodies: number; refused: number }
}

/** A copy of dist/ whose caches `spoil` changes; removed after `use`. */
const withCopy = <A>(spoil: (cache: string) => void, use: (dist: string) => A): A =>
  withTempDir("payouts-cache-", (dir) => {
    const dist = join(dir, "dist")
    cpSync(DIST, dist, { recursive: true })
    for (const file of readdirSync(dist).filter((f) => f.endsWith(".js.cache"))) spoil(join(dist, file))
    return use(dist)
  })

/** scripts/bundle/bodies.mjs's body of the module `code`, or the error it refuses it with. */
const bodyOf = (code: string) => {
  const script = `import { toBody } from ${JSON.stringify(BODIES)}
try { console.log(JSON.stringify({ body: toBody("x.js", ${JSON.stringify(code)}) })) } catch (e) { console.log(JSON.stringify({ error: e.message })) }`
  return JSON.parse(node(["--input-type=module", "-e", script]).stdout) as { body?: string; error?: string }
}

const help = (dist: string, flags: ReadonlyArray<string> = []) => node([...flags, join(dist, "main.js"), "--help"])

describe("a chunk as a function body", () => {
  it.effect("the module syntax is blanked where it stands and said on a first and a last line: every other line and column is kept, one line down", () =>
    Effect.sync(() => {
      const code = [
        `import {`,
        `  a as b,`,
        `  c`,
        `} from "./chunk-A.js";`,
        `import * as fs from "node:fs";`,
        `import "./chunk-B.js";`,
        `let late;`,
        `late = 1;`,
        `const run = () => import("./Run-C.js").then((m) => m.run(b, c, fs, import.meta.url));`,
        `export {`,
        `  run as go,`,
        `  late`,
        `};`
      ].join("\n")
      const { body } = bodyOf(code)
      const blank = (line: string) => " ".repeat(line.length)
      expect(body?.split("\n")).toEqual([
        `const { a: b, c } = $$need("./chunk-A.js"); const fs = $$need("node:fs"); $$need("./chunk-B.js");`,
        ...code.split("\n").slice(0, 6).map(blank),
        `let late;`,
        `late = 1;`,
        `const run = () => $$load("./Run-C.js").then((m) => m.run(b, c, fs, $importMeta.url));`,
        ...code.split("\n").slice(9).map(blank),
        `$$export({ go: run, late });`
      ])
      // As esbuild writes it without whitespace: the code after an import keeps its column.
      const minified = `import{x as y}from"./chunk-D.js";const z=y+1;export{z};`
      expect(bodyOf(minified).body?.split("\n")).toEqual([`const { x: y } = $$need("./chunk-D.js");`, `${" ".repeat(33)}const z=y+1;${" ".repeat(10)}`, `$$export({ z });`])
    }))

  it.effect("refused: an export assigned after its module has run (importers hold a copy), or a package imported", () =>
    Effect.sync(() => {
      expect(bodyOf(`let n = 0;\nconst bump = () => { n++ };\nexport { bump, n };`).error).toMatch(/exports n, which is assigned after the module has run \(line 2\)/)
      expect(bodyOf(`import { x } from "effect";\nexport { x };`).error).toMatch(/imports effect, a package/)
    }))
})

describe("the code cache of dist/", () => {
  it.effect("every chunk has one, and the Node that built it takes it", () =>
    Effect.sync(() => {
      const { bodies, refused: none } = refused(DIST)
      expect(bodies).toBeGreaterThan(10)
      expect(none).toBe(0)
    }))

  it.effect("the build's training runs (scripts/bundle/train.mjs) left more than the top level in the start's caches", () =>
    Effect.sync(() => {
      // The chunk main-body.js imports first: the Effect runtime, which every start runs.
      const script = [
        `import { cacheUrl, compileText } from ${JSON.stringify(join(DIST, "load.cjs"))}`,
        `import { readFileSync } from "node:fs"`,
        `import { pathToFileURL } from "node:url"`,
        `const main = pathToFileURL(${JSON.stringify(join(DIST, "main-body.js"))})`,
        `const chunk = new URL(/\\$\\$need\\("(\\.\\/chunk-[^"]+)"\\)/.exec(readFileSync(main, "utf8"))[1], main)`,
        `const untrained = compileText(readFileSync(chunk, "utf8"), chunk).script.createCachedData().length`,
        `console.log(JSON.stringify({ trained: readFileSync(cacheUrl(chunk)).length, untrained }))`
      ].join("\n")
      const ran = node(["--input-type=module", "-e", script])
      expect(ran.stderr).toBe("")
      const { trained, untrained } = JSON.parse(ran.stdout) as { trained: number; untrained: number }
      expect(trained).toBeGreaterThan(untrained * 1.5)
    }))

  it.effect("refused under other V8 flags, the CLI compiles its source and says the same", () =>
    Effect.sync(() => {
      const flags = ["--max-old-space-size=300"]
      const { bodies, refused: all } = refused(DIST, flags)
      expect(all).toBe(bodies)
      const plain = help(DIST)
      expect(plain.code).toBe(0)
      expect(help(DIST, flags)).toEqual(plain)
    }))

  it.effect("a damaged or missing cache only costs time", () =>
    Effect.sync(() => {
      const plain = help(DIST)
      const damaged = withCopy((cache) => writeFileSync(cache, Buffer.alloc(statSync(cache).size, 7)), (dist) => {
        const { bodies, refused: all } = refused(dist)
        expect(all).toBe(bodies)
        return help(dist)
      })
      expect(damaged).toEqual(plain)
      expect(withCopy(unlinkSync, (dist) => help(dist))).toEqual(plain)
    }))
})
