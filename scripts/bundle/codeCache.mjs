// What scripts/build.mjs writes into dist/ for esbuild's output: each chunk as a function body with its
// V8 code cache (load.cjs runs them), each entry as a small CommonJS module that starts its body (bin/
// payouts.js requires main.js), load.cjs, and
// a package.json that makes dist/'s .js files CommonJS (the project's own says "module").
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { bodyMap, toBody } from "./bodies.mjs"

const { cacheUrl, compileText } = createRequire(import.meta.url)("./load.cjs")

/** The suffix of an entry's body: esbuild's entryNames is `[name]${BODY}`. */
export const BODY = "-body"

const loader = new URL("./load.cjs", import.meta.url)

const stub = (name) =>
  [
    `// Written by scripts/build.mjs: runs ${name}${BODY}.js, a function body, with its code cache (load.cjs).`,
    `const { pathToFileURL } = require("node:url")`,
    `require("./load.cjs").start(new URL("./${name}${BODY}.js", pathToFileURL(__filename)))`,
    ""
  ].join("\n")

/**
 * The files of dist/ as `[path, contents]`, from esbuild's `outputFiles` and the names of the entry
 * points. The cache is made by compiling each body here, with the Node that runs the build (`npm ci`
 * runs it through `prepare`): V8 caches what it compiles eagerly, the bodies' top levels (train.mjs
 * then adds what a start runs).
 */
export const distFiles = (outputFiles, outdir, entries) => {
  const files = []
  for (const file of outputFiles) {
    if (file.path.endsWith(".js.map")) {
      files.push([file.path, bodyMap(file.text)])
      continue
    }
    if (!file.path.endsWith(".js")) {
      files.push([file.path, file.contents])
      continue
    }
    const body = toBody(basename(file.path), file.text)
    const url = pathToFileURL(file.path)
    files.push([file.path, body], [fileURLToPath(cacheUrl(url)), compileText(body, url).script.createCachedData()])
  }
  for (const name of entries) files.push([join(outdir, `${name}.js`), stub(name)])
  files.push([join(outdir, "load.cjs"), readFileSync(loader)], [join(outdir, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`])
  return files
}
