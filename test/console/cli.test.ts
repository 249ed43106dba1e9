/**
 * `payouts users` and `payouts console` as the built binary runs them (issue 34): people added with a
 * password read from standard input, listed, given a new one and removed; the console started on a
 * free port prints its URL and signs them in; beyond loopback it refuses to start without TLS or a
 * proxy (exit 2, saying so), and serves HTTPS with a certificate.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as Https from "node:https"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { startSandbox } from "../kit/Sandbox.ts"
import { tempDir } from "../kit/TempDir.ts"
import { PASSWORD } from "./consoleSupport.ts"

const BIN = resolve("bin/payouts.js")

interface Env {
  readonly [key: string]: string
}

/** `payouts ARGS` with `input` on standard input, to its end. */
const payouts = (args: ReadonlyArray<string>, env: Env, input = "") =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    child.stdin.end(input)
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** `payouts console ARGS` until the scope ends; the URL it printed. */
const consoleServing = (args: ReadonlyArray<string>, env: Env) =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, [BIN, "console", ...args], { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] })),
      (c: ChildProcess) => Effect.sync(() => c.kill("SIGTERM"))
    )
    const out = { stdout: "", stderr: "" }
    child.stdout?.on("data", (d) => (out.stdout += d))
    child.stderr?.on("data", (d) => (out.stderr += d))
    const url = yield* Effect.sync(() => /Console: (\S+)/.exec(out.stdout)?.[1]).pipe(
      Effect.filterOrFail((u): u is string => u !== undefined),
      Effect.retry(Schedule.spaced("100 millis")),
      Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`no URL printed: ${out.stderr}`) })
    )
    return { url, out }
  })

const envOf = (sandbox: { readonly baseUrl: string; readonly key: string; readonly secret: string }, state: string): Env => ({
  PAYOUTS_BASE_URL: sandbox.baseUrl, PAYOUTS_API_KEY: sandbox.key, PAYOUTS_API_SECRET: sandbox.secret, PAYOUTS_STATE: state, XDG_STATE_HOME: join(state, "..", "xdg")
})

const signInStatus = (url: string, name: string, password: string) =>
  Effect.promise(() => fetch(`${url}sign-in`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ name, password }).toString() }).then((r) => r.status))

describe("payouts users and payouts console (the binary)", () => {
  it.scopedLive("users add, list, passwd and remove; the console prints its URL and signs them in as the store says", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const env = envOf(sandbox, join(tempDir("payouts-console-cli-"), "state.db"))
      const added = yield* payouts(["users", "add", "alice", "--role", "operator", "--password-stdin"], env, `${PASSWORD}\n`)
      expect(added.code, added.stderr).toBe(0)
      expect(added.stdout).toContain("Added alice (operator)")
      expect((yield* payouts(["users", "add", "Alice", "--role", "viewer", "--password-stdin"], env, `${PASSWORD}\n`)).code).toBe(2)
      const short = yield* payouts(["users", "add", "bob", "--role", "viewer", "--password-stdin"], env, "short\n")
      expect([short.code, short.stderr]).toEqual([2, expect.stringContaining("at least 10 characters")])
      const noStdin = yield* payouts(["users", "add", "bob", "--role", "viewer"], env)
      expect([noStdin.code, noStdin.stderr]).toEqual([2, expect.stringContaining("--password-stdin")])
      expect((yield* payouts(["users", "add", "bob", "--role", "viewer", "--password-stdin"], env, "bob's long password\n")).code).toBe(0)
      const listed = yield* payouts(["users", "list", "--json"], env)
      expect(JSON.parse(listed.stdout).map((u: { name: string; role: string }) => [u.name, u.role])).toEqual([["alice", "operator"], ["bob", "viewer"]])
      expect((yield* payouts(["users", "list"], env)).stdout).toMatch(/NAME\s+ROLE[\s\S]*alice\s+operator/)

      const { url } = yield* consoleServing(["--listen", "127.0.0.1:0"], env)
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
      expect(yield* signInStatus(url, "alice", PASSWORD)).toBe(303)
      expect(yield* signInStatus(url, "bob", "bob's long password")).toBe(303)

      expect((yield* payouts(["users", "passwd", "alice", "--password-stdin"], env, "a brand new password\n")).code).toBe(0)
      expect(yield* signInStatus(url, "alice", "a brand new password")).toBe(303)
      const removed = yield* payouts(["users", "remove", "bob"], env)
      expect([removed.code, removed.stdout]).toEqual([0, expect.stringContaining("Removed bob")])
      expect(yield* signInStatus(url, "bob", "bob's long password")).toBe(401)
      expect((yield* payouts(["users", "remove", "bob"], env)).code).toBe(2)
    }))

  it.scopedLive("beyond loopback: refused without TLS or a proxy (exit 2, saying why); served over HTTPS with a certificate", () =>
    Effect.gen(function* () {
      const sandbox = yield* startSandbox()
      const dir = tempDir("payouts-console-tls-")
      const env = envOf(sandbox, join(dir, "state.db"))
      const refused = yield* payouts(["console", "--listen", "0.0.0.0:0"], env)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toMatch(/--tls-cert FILE --tls-key FILE[\s\S]*--behind-proxy/)
      expect((yield* payouts(["console", "--listen", "0.0.0.0:0", "--tls-cert", join(dir, "missing.pem")], env)).code).toBe(2)

      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=localhost",
        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" })
      const { out, url } = yield* consoleServing(["--listen", "0.0.0.0:0", "--tls-cert", join(dir, "cert.pem"), "--tls-key", join(dir, "key.pem")], env)
      expect(url).toMatch(/^https:\/\/0\.0\.0\.0:\d+\/$/)
      expect(out.stderr).toContain("over HTTPS")
      const port = Number(new URL(url).port)
      const answer = yield* Effect.async<{ status: number | undefined; body: string }>((resume) => {
        const request = Https.get({ host: "127.0.0.1", port, path: "/sign-in", ca: readFileSync(join(dir, "cert.pem")) }, (response) => {
          let body = ""
          response.on("data", (d) => (body += d))
          response.on("end", () => resume(Effect.succeed({ status: response.statusCode, body })))
        })
        request.on("error", (error) => resume(Effect.die(error)))
      })
      expect(answer.status).toBe(200)
      expect(answer.body).toContain("Sign in")
    }))
})
