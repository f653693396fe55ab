/**
 * Tells the server whether this page is looked at, for automatic away: out of view for ten
 * minutes (another tab, a minimised window, a locked screen), it says it is not, as a phone app
 * put in the background says `AWAY *`; in view again, at once. A socket starts as looked at, so a
 * page still out of view says so again after a reconnect. The tab's title and its notifications
 * go on as before: the page is not gone.
 */
import { effect } from "@preact/signals";
import { socket } from "./session.ts";
import { socketState } from "./state.ts";

/** How long a page is out of view before it stops counting as the user being there. */
const OUT_OF_VIEW_MS = 10 * 60_000;

/** Watches this page's visibility from now on (once per page). */
export function watchPresence(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** What this page says: looked at or not. */
  let here = true;
  const tell = (now: boolean) => {
    here = now;
    if (socketState.peek() === "open") void socket.request({ method: "presence", here: now });
  };
  const seen = () => {
    clearTimeout(timer);
    timer = undefined;
    if (document.visibilityState === "visible") {
      if (!here) tell(true);
    } else timer = setTimeout(() => tell(false), OUT_OF_VIEW_MS);
  };
  document.addEventListener("visibilitychange", seen);
  seen();
  effect(() => {
    if (socketState.value === "open" && !here) {
      void socket.request({ method: "presence", here: false });
    }
  });
}
