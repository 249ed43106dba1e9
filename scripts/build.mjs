// `npm run build` (run by `npm ci` through `prepare`, and first by `npm test`): bundles the CLI into
// dist/ so `bin/payouts.js` starts it with plain Node instead of compiling TypeScript at every start.
// Code splitting keeps each command's handler (and what only it needs: the sandbox, the SQL drivers,
// the phone metadata, the run engine) in chunks loaded when that command runs. Each chunk is written as
// a function body with a V8 code cache (scripts/bundle/), so a start does not compile it again.
import { build } from "esbuild"
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { BODY, distFiles } from "./bundle/codeCache.mjs"
import { trainCaches } from "./bundle/train.mjs"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = join(root, "dist")
const require = createRequire(import.meta.url)

const entryPoints = { main: join(root, "src/cli/main.ts") }

/** A class whose instances are made by the package, loaded on the first `new`. */
const lazyClass = (name, of) => `export ${name === "default" ? "default class" : `class ${name}`} { constructor(...args) { return new (${of})(...args) } }`

/**
 * CommonJS packages that only some commands use but that every command loading their importer would
 * evaluate at start (their importers use them only inside functions): each is replaced, for that
 * importer, by these few names, which require the package (left outside the bundle) on first use.
 * Every name the importer uses must be here: checkLazyNames fails the build on a missing one.
 */
const LAZY = {
  // @effect/cli's parsers of option files in YAML, TOML and INI: we read no such file.
  yaml: { from: "@effect/cli", exports: ["export const parse = (text) => load().parse(text)"] },
  toml: { from: "@effect/cli", exports: ["export const parse = (text) => load().parse(text)"] },
  ini: { from: "@effect/cli", exports: ["export const parse = (text) => load().parse(text)"] },
  // The PostgreSQL driver: only a postgres:// store needs it, and a SQLite one is the default.
  pg: {
    from: "@effect/sql-pg",
    exports: [lazyClass("Client", "load().Client"), lazyClass("Pool", "load().Pool"), "export const escapeIdentifier = (text) => load().escapeIdentifier(text)"]
  },
  "pg-cursor": { from: "@effect/sql-pg", exports: [lazyClass("default", "load()")] },
  // SQLite's native addon, required (not imported: Node would first scan its CommonJS source for
  // names) when a store is opened.
  "better-sqlite3": { from: "@effect/sql-sqlite-node", exports: [lazyClass("default", "load()")] },
  // WebSockets of the HTTP server and sockets: the webhook receiver and the sandbox serve none.
  ws: { from: "@effect/platform-node", exports: [lazyClass("WebSocket", "load().WebSocket"), lazyClass("WebSocketServer", "load().WebSocketServer")] }
}
const LAZY_NAMES = new RegExp(`^(${Object.keys(LAZY).join("|")})$`)

/**
 * Fails the build when `importer` uses a name of the lazy package `name` that LAZY does not give
 * (esbuild only warns of a missing name, and not inside node_modules): a dependency's update that
 * starts using another name stops the build instead of failing at run time.
 */
const checkLazyNames = (name, importer) => {
  const source = readFileSync(importer, "utf8")
  const given = new Set(LAZY[name].exports.map((text) => /^export (?:default|(?:const|class) (\w+))/.exec(text)?.[1] ?? "default"))
  const quoted = JSON.stringify(name)
  const used = []
  for (const [, binding] of source.matchAll(new RegExp(`^import \\* as (\\w+) from ${quoted};$`, "gm"))) {
    for (const [, member] of source.matchAll(new RegExp(`\\b${binding}\\.(\\w+)`, "g"))) used.push(member)
  }
  if (new RegExp(`^import \\w+ from ${quoted};$`, "m").test(source)) used.push("default")
  if (used.length === 0) throw new Error(`${importer} imports ${name} in a way scripts/build.mjs does not read: review LAZY`)
  const missing = used.filter((member) => !given.has(member))
  if (missing.length > 0) throw new Error(`${importer} uses ${missing.join(", ")} of ${name}, which LAZY in scripts/build.mjs does not give`)
}

/**
 * The names a package's index (its "barrel") re-exports, each with the module it comes from:
 * `export * as Effect from "./Effect.js"` gives Effect -> { path: "effect/Effect", namespace: true }.
 */
const barrelCache = new Map()
const barrelOf = (pkg) => {
  if (!barrelCache.has(pkg)) {
    const text = readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), "dist/esm/index.js"), "utf8")
    const names = new Map()
    for (const [, name, path] of text.matchAll(/^export \* as (\w+) from "\.\/([\w/]+)\.js";$/gm)) names.set(name, { path: `${pkg}/${path}`, namespace: true })
    for (const [, list, path] of text.matchAll(/^export \{([^}]*)\} from "\.\/([\w/]+)\.js";$/gm)) {
      for (const name of list.split(",").map((n) => n.trim()).filter((n) => n !== "")) names.set(name, { path: `${pkg}/${path}`, namespace: false })
    }
    barrelCache.set(pkg, names)
  }
  return barrelCache.get(pkg)
}

/**
 * `import { Effect, Option } from "effect"` becomes `import * as Effect from "effect/Effect"; ...`:
 * the same modules, without the index. With code splitting an index imported by the command tree
 * lands in its chunk with every module it re-exports that any command uses, so each command's
 * Effect modules (Stream, Schema, HttpRouter, ...) would load at every start. Line count is kept, so
 * the sourcemaps still point at the right lines.
 */
const BARREL_IMPORT = /^import \{([^}]*)\} from "(effect|@effect\/[\w-]+)"/gm
const withoutBarrels = (source) =>
  source.replace(BARREL_IMPORT, (declaration, list, pkg) => {
    const names = barrelOf(pkg)
    const kept = []
    const direct = []
    for (const spec of list.split(",").map((s) => s.trim()).filter((s) => s !== "" && !s.startsWith("type "))) {
      const [name, alias = name] = spec.split(/\s+as\s+/)
      const found = names.get(name)
      if (found === undefined) kept.push(spec)
      else if (found.namespace) direct.push(`import * as ${alias} from "${found.path}"`)
      else direct.push(`import { ${spec} } from "${found.path}"`)
    }
    if (kept.length > 0) direct.push(`import { ${kept.join(", ")} } from "${pkg}"`)
    const lines = declaration.split("\n").length
    return direct.join("; ") + "\n".repeat(lines - 1)
  })

const main = entryPoints.main
const cliDir = join(root, "src/cli") + sep

const lean = {
  name: "lean",
  setup(build) {
    // A module the CLI imports dynamically (a command's handler, the embedded sandbox) is loaded
    // through a wrapper that also imports main.ts (already evaluated by then: free at run time).
    // Chunks are cut by which entries reach a module; main reaches effect, @effect/cli, the command
    // tree and the rest of what every start needs, and each handler reaches part of that in its own
    // combination, so without the wrapper those modules would be cut into a dozen chunks, each one
    // more file every start waits for. With it they are one. Only the CLI's dynamic imports.
    build.onResolve({ filter: /^\./ }, (args) =>
      args.kind === "dynamic-import" && args.importer.startsWith(cliDir) ? { path: resolve(args.resolveDir, args.path), namespace: "lazy-entry" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "lazy-entry" }, (args) => ({
      contents: `import ${JSON.stringify(main)}\nexport * from ${JSON.stringify(args.path)}\n`,
      resolveDir: dirname(args.path),
      loader: "js"
    }))
    // libphonenumber's metadata (an object literal of 157 KB) as JSON.parse of its text: the literal's
    // boilerplate filled the code cache and was rebuilt object by object at each validate's start.
    build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]metadata\.\w+\.json\.js$/ }, (args) => {
      const literal = /^export default (\{.*\})\s*$/m.exec(readFileSync(args.path, "utf8"))
      if (literal === null) throw new Error(`${args.path} is not the one object literal scripts/build.mjs expects`)
      return { contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(literal[1])))})`, loader: "js" }
    })
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => ({ contents: withoutBarrels(readFileSync(args.path, "utf8")), loader: "ts" }))
    build.onResolve({ filter: LAZY_NAMES }, (args) => {
      if (!args.importer.includes(LAZY[args.path].from)) return undefined
      checkLazyNames(args.path, args.importer)
      return { path: args.path, namespace: "lazy-cjs" }
    })
    build.onLoad({ filter: /.*/, namespace: "lazy-cjs" }, (args) => ({
      contents: [`let loaded\nconst load = () => (loaded ??= require(${JSON.stringify(args.path)}))`, ...LAZY[args.path].exports].join("\n"),
      resolveDir: root,
      loader: "js"
    }))
  }
}

const result = await build({
  entryPoints,
  outdir,
  // Written below once the whole build succeeded: a failed build leaves the last good dist/ as it was.
  write: false,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  treeShaking: true,
  // Without whitespace and comments: a quarter less text for each start to read and hand V8 (the
  // names stay, so do stack traces' function names; the source maps give the lines).
  minifyWhitespace: true,
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning",
  chunkNames: "[name]-[hash]",
  // dist/main.js starts this (scripts/bundle/codeCache.mjs).
  entryNames: `[name]${BODY}`,
  plugins: [lean],
  // A native addon cannot be bundled (pg-native is pg's optional one); the lazy packages stay outside.
  external: ["pg-native", ...Object.keys(LAZY)],
  // Bundled CommonJS packages call require(), which ESM lacks: each output file makes its own.
  banner: { js: "import { createRequire as __payoutsRequire } from \"node:module\"; const require = __payoutsRequire(import.meta.url);" }
})

// A warning fails the build (e.g. an import that "will always be undefined"): dist/ is run as built.
if (result.warnings.length > 0) throw new Error(`the build has ${result.warnings.length} warning(s), shown above`)

// Made before dist/ is touched: a chunk the conversion refuses fails the build like a warning.
const files = distFiles(result.outputFiles, outdir, Object.keys(entryPoints))
// Written beside dist/ and trained there (scripts/bundle/train.mjs runs the CLI from it), so a failed
// training run also leaves the last good dist/. A code cache does not depend on its file's path.
const staging = `${outdir}.new`
rmSync(staging, { recursive: true, force: true })
mkdirSync(staging, { recursive: true })
for (const [path, contents] of files) writeFileSync(join(staging, relative(outdir, path)), contents)
try {
  trainCaches(staging)
} catch (error) {
  rmSync(staging, { recursive: true, force: true })
  throw error
}
// Old chunks go (their names change with their content); the new files replace them.
rmSync(outdir, { recursive: true, force: true })
renameSync(staging, outdir)

// `node scripts/build.mjs --analyze`: what each output file holds, largest first.
if (process.argv.includes("--metafile")) writeFileSync(join(outdir, "meta.json"), JSON.stringify(result.metafile))
if (process.argv.includes("--analyze")) {
  const { analyzeMetafile } = await import("esbuild")
  console.log(await analyzeMetafile(result.metafile))
}

// `node scripts/build.mjs --closure`: what starting each command loads (its chunk and every chunk it
// imports statically), in bytes, with the packages and source folders that weigh most.
if (process.argv.includes("--closure")) {
  const { outputs } = result.metafile
  const closureOf = (start) => {
    const seen = new Set()
    const stack = [start]
    while (stack.length > 0) {
      const file = stack.pop()
      if (seen.has(file)) continue
      seen.add(file)
      for (const i of outputs[file]?.imports ?? []) if (i.kind === "import-statement" && !i.external) stack.push(i.path)
    }
    return [...seen]
  }
  const groupOf = (input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.replace(/^lazy-\w+:/, "").replace(root, "").split("/").slice(0, 2).join("/")
  for (const [file, output] of Object.entries(outputs)) {
    if (output.entryPoint === undefined) continue
    const files = closureOf(file)
    const groups = new Map()
    for (const f of files) for (const [input, { bytesInOutput }] of Object.entries(outputs[f].inputs)) groups.set(groupOf(input), (groups.get(groupOf(input)) ?? 0) + bytesInOutput)
    const total = files.reduce((n, f) => n + outputs[f].bytes, 0)
    const top = [...groups].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([g, n]) => `${g} ${(n / 1024).toFixed(0)}k`)
    console.log(`${output.entryPoint.replace(/^lazy-entry:/, "").replace(root, "")}: ${files.length} files, ${(total / 1024).toFixed(0)} KiB (${top.join(", ")})`)
  }
}
