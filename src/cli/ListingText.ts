/** How a day's listing gap (src/run/ListingGap.ts) is told, in notices and reconcile reports alike. */
import type { ListingGap } from "../run/ListingGap.ts"

export const listingGapText = (gap: ListingGap): string => {
  switch (gap._tag) {
    case "Unread":
      return `the listing could not be read: ${gap.message}`
    case "BadAmount":
      return `the listing shows ${gap.shown} with ${gap.problem}`
    case "Overclaimed":
      return `the service claims ${gap.total} payouts in ${gap.totalPages} pages, more than ${gap.maxPages} pages of ${gap.limit} can hold; ${gap.pagesRead} page(s) read, ${gap.count} payouts`
    case "Short":
      return `${gap.count} distinct payouts read where the service reported ${gap.total}`
  }
}
