// Copied into dist/ by scripts/build.mjs: runs the CLI's chunks, which the build wrote as function
// bodies (scripts/bundle/bodies.mjs), compiled with the V8 code cache it made for each one. Node 20
// caches no ES module's code, so compiling the command tree's chunks cost every start ~85 ms; with
// the cache V8 deserialises what it compiled at build time. A cache V8 refuses (another Node, other
// V8 flags) or a missing one only costs that time back: V8 then compiles the source, as it did.
// Each body is compiled as a script holding one function expression (vm.Script, not compileFunction)
// so that the build can ask for its cache after a run (scripts/bundle/train.mjs): V8 then includes
// every function that run compiled, which a start would otherwise compile again on first call.
// Nothing is written here at run time: an install may be read-only. CommonJS, as are bin/payouts.js
// and dist/'s entries (dist/package.json says so): a start then never loads Node's ES module loader,
// which cost each one ~10 ms, since nothing it runs is an ES module.
const { readFileSync } = require("node:fs")
const { Script } = require("node:vm")

/** The parameters of every body, in this order (bodies.mjs writes code that uses them). */
const PARAMS = ["$$need", "$$load", "$$export", "$importMeta"]

/** Where the build puts the code cache of the body at `url`. */
const cacheUrl = (url) => new URL(`${url.href}.cache`)

const isLocal = (spec) => /^\.\.?\//.test(spec)

/** Each body's exports once it has run; `evaluating` while it runs (the build makes no cycles). */
const modules = new Map()
const evaluating = Symbol("evaluating")

const readCache = (url) => {
  try {
    return readFileSync(cacheUrl(url))
  } catch {
    return undefined
  }
}

/** The script of each body compiled here, by URL: what the build's training run caches (train.mjs). */
const scripts = new Map()

/** The scripts compiled so far, by URL (for scripts/bundle/train.mjs). */
const compiledScripts = () => scripts

/**
 * The body `text` (of the file at `url`) compiled, as both the build (which asks for its cache) and a
 * start compile it: V8 takes a cache only for the very source it was made from. The directive: the
 * bodies come from ES modules, which are strict code. The line break: a body may end in a comment.
 */
const compileText = (text, url, options) => {
  const script = new Script(`(function (${PARAMS.join(", ")}) {"use strict";${text}\n})`, { filename: url.href, ...options })
  scripts.set(url.href, script)
  return { script, body: script.runInThisContext() }
}

/** The body at `url` as a function; `rejected`: its cache was refused (or there was none). */
const compileBody = (url, cachedData = readCache(url)) => {
  const { script, body } = compileText(readFileSync(url, "utf8"), url, { cachedData })
  return { body, rejected: cachedData === undefined || script.cachedDataRejected === true }
}

const need = (url) => {
  const known = modules.get(url.href)
  if (known === evaluating) throw new Error(`${url.href} imports itself back: scripts/bundle/bodies.mjs cannot load a cycle`)
  if (known !== undefined) return known
  modules.set(url.href, evaluating)
  try {
    const exports = Object.create(null)
    const local = (spec) => (isLocal(spec) ? need(new URL(spec, url)) : require(spec))
    const later = (spec) => (isLocal(spec) ? Promise.resolve(spec).then(local) : import(spec))
    compileBody(url).body(local, later, (values) => Object.assign(exports, values), { url: url.href })
    modules.set(url.href, Object.freeze(exports))
    return exports
  } catch (error) {
    modules.delete(url.href)
    throw error
  }
}

/** Runs the entry body at `url` (main-body.js). */
const start = (url) => {
  need(url)
}

module.exports = { PARAMS, cacheUrl, compiledScripts, compileText, compileBody, start }
