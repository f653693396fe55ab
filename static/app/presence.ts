/**
 * Tells the server whether this page is looked at, for automatic away: out of view for ten
 * minutes (another tab, a minimised window, a locked screen), or in view but untouched (no key,
 * click, pointer move, wheel or touch) for thirty, it says it is not, as a phone app put in the
 * background says `AWAY *`; touched or in view again, at once. A socket starts as looked at, so a
 * page still not looked at says so again after a reconnect. The tab's title and its
 * notifications go on as before: the page is not gone.
 */
import { effect } from "@preact/signals";
import { socket } from "./session.ts";
import { socketState } from "./state.ts";

/** How long a page is out of view before it stops counting as the user being there. */
const OUT_OF_VIEW_MS = 10 * 60_000;
/**
 * How long a page in view goes untouched before it stops counting: longer, as reading a busy
 * channel touches nothing, and being shown away while there is the worse mistake.
 */
const UNTOUCHED_MS = 30 * 60_000;
/** What counts as the user touching the page. */
const INPUT = ["keydown", "pointerdown", "pointermove", "wheel", "touchstart"] as const;

/** Watches this page's visibility and use from now on (once per page). */
export function watchPresence(): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** What this page says: looked at or not. */
  let here = true;
  let touchedAt = Date.now();
  const tell = (now: boolean) => {
    here = now;
    if (socketState.peek() === "open") void socket.request({ method: "presence", here: now });
  };
  const wait = (ms: number, then: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(then, ms);
  };
  /** In view: untouched for UNTOUCHED_MS, the page stops counting (checked when it may be due). */
  const untouched = () => {
    const left = touchedAt + UNTOUCHED_MS - Date.now();
    if (left > 0) wait(left, untouched);
    else if (here) tell(false);
  };
  const seen = () => {
    if (document.visibilityState !== "visible") return wait(OUT_OF_VIEW_MS, () => tell(false));
    touchedAt = Date.now();
    if (!here) tell(true);
    wait(UNTOUCHED_MS, untouched);
  };
  // A pointer move comes often: it only notes the time, unless the page had stopped counting.
  const touched = () => {
    touchedAt = Date.now();
    if (!here && document.visibilityState === "visible") seen();
  };
  document.addEventListener("visibilitychange", seen);
  for (const type of INPUT) addEventListener(type, touched, { passive: true, capture: true });
  seen();
  effect(() => {
    if (socketState.value === "open" && !here) {
      void socket.request({ method: "presence", here: false });
    }
  });
}
