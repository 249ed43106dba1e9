// `npm run build` (run by `npm ci` through `prepare`, and first by `npm test`): bundles the CLI into
// dist/ so `bin/payouts.js` starts it with plain Node instead of compiling TypeScript at every start.
// Code splitting keeps each command's handler (and what only it needs: the sandbox, the SQL drivers,
// the phone metadata, the run engine) in chunks loaded when that command runs.
import { build } from "esbuild"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = join(root, "dist")
const require = createRequire(import.meta.url)

const entryPoints = { main: join(root, "src/cli/main.ts") }
// Resolved at run time as new URL("./ValidateWorker.js", import.meta.url) from a chunk of dist/, so it
// is an entry of its own, directly in dist/ (as every chunk is: chunkNames has no folder).
const worker = join(root, "src/intake/ValidateWorker.ts")
if (existsSync(worker)) entryPoints.ValidateWorker = worker

/** Packages loaded with `require` when first called instead of at start (see `lean` below). */
const LAZY_CJS = /^(yaml|toml|ini)$/

const lean = {
  name: "lean",
  setup(build) {
    // The @effect/platform-node barrel re-exports undici (CommonJS) with `export *`, which esbuild
    // cannot tree-shake: every module importing the barrel would load undici's megabyte. Nothing of
    // ours uses the barrel's Undici namespace; NodeHttpClient still loads undici where it is used.
    const barrel = join(dirname(require.resolve("@effect/platform-node/package.json")), "dist/esm/index.js")
    build.onResolve({ filter: /^@effect\/platform-node$/ }, () => ({ path: barrel, namespace: "barrel" }))
    build.onLoad({ filter: /.*/, namespace: "barrel" }, (args) => {
      const text = readFileSync(args.path, "utf8")
      const without = text.replace(/^export \* as Undici from "\.\/Undici\.js";$/m, "")
      if (without === text) throw new Error("the @effect/platform-node barrel changed: review the lean plugin in scripts/build.mjs")
      return { contents: without, resolveDir: dirname(args.path), loader: "js" }
    })
    // @effect/cli imports parsers for YAML, TOML and INI option files at its top level; we read no
    // such file, so they are required (external, from node_modules) only if one is ever parsed.
    build.onResolve({ filter: LAZY_CJS }, (args) => (args.importer.includes("@effect/cli") ? { path: args.path, namespace: "lazy-cjs" } : undefined))
    build.onLoad({ filter: /.*/, namespace: "lazy-cjs" }, (args) => ({
      contents: `export const parse = (text) => require(${JSON.stringify(args.path)}).parse(text)`,
      resolveDir: root,
      loader: "js"
    }))
  }
}

rmSync(outdir, { recursive: true, force: true })
const result = await build({
  entryPoints,
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  treeShaking: true,
  sourcemap: "linked",
  metafile: true,
  logLevel: "warning",
  chunkNames: "[name]-[hash]",
  plugins: [lean],
  // A native addon cannot be bundled (pg-native is pg's optional one); the lazy parsers stay outside.
  external: ["better-sqlite3", "pg-native", "yaml", "toml", "ini"],
  // Bundled CommonJS packages call require(), which ESM lacks: each output file makes its own.
  banner: { js: "import { createRequire as __payoutsRequire } from \"node:module\"; const require = __payoutsRequire(import.meta.url);" }
})

// `node scripts/build.mjs --analyze`: what each output file holds, largest first.
if (process.argv.includes("--analyze")) {
  const { analyzeMetafile } = await import("esbuild")
  console.log(await analyzeMetafile(result.metafile))
}
