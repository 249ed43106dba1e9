#!/usr/bin/env node
// Runs the TypeScript sources through tsx so `npx payouts` works right after `npm ci`, with no build step.
import { register } from "tsx/esm/api"
register()
await import("../src/cli/main.ts")
