/** Every page of the console behind the sign-in, in the navigation's order (Contract.ts NAVIGATION). */
import { HttpRouter } from "@effect/platform"
import { accountRoutes } from "./pages/Account.ts"
import { approvalsRoutes } from "./pages/Approvals.ts"
import { attentionRoutes } from "./pages/Attention.ts"
import { batchRoutes } from "./pages/Batch.ts"
import { batchFileRoutes } from "./pages/BatchFiles.ts"
import { batchesRoutes } from "./pages/Batches.ts"
import { workersRoutes } from "./pages/Workers.ts"

export const consolePages = HttpRouter.concatAll(batchesRoutes, batchRoutes, batchFileRoutes, approvalsRoutes, attentionRoutes, workersRoutes, accountRoutes)
