/**
 * The console's only script, served at /assets/console.js: a part marked `data-live="URL"` is fetched
 * again every 2 s while the tab is visible and replaced when it changed, so a running batch moves on
 * screen. Without a session the fetch is answered 401 and the refresh stops; without JavaScript the
 * page still works (reload it).
 */
/** What the script asks for: the server tells a page refreshing itself from a person's request by it. */
export const LIVE_PART = "text/x-console-part"

export const CONSOLE_JS = `"use strict";
(() => {
  const EVERY_MS = 2000;
  for (const part of document.querySelectorAll("[data-live]")) {
    const url = part.getAttribute("data-live");
    let last = null;
    const tick = async () => {
      if (!document.hidden) {
        let answer;
        try { answer = await fetch(url, { headers: { accept: "${LIVE_PART}" }, cache: "no-store" }); } catch { answer = undefined; }
        if (answer !== undefined && answer.status === 401) return;
        if (answer !== undefined && answer.ok) {
          const html = await answer.text();
          // Replaced only when it changed: focus and a screen reader's place stay put otherwise.
          if (html !== last) { part.innerHTML = html; last = html; }
        }
      }
      setTimeout(tick, EVERY_MS);
    };
    setTimeout(tick, EVERY_MS);
  }
})();
`
