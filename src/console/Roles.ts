/** The console's roles (DESIGN 13), apart from the pages so the command tree can name them without loading HTTP. */
export const ROLES = ["viewer", "approver", "operator", "admin"] as const
export type Role = (typeof ROLES)[number]
