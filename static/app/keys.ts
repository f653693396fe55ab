/**
 * Keyboard shortcuts over the whole app: which key presses are shortcuts is told at once (their
 * browser defaults must be prevented then); what they do comes with the after-paint chunk
 * (shortcuts.ts), fetched by the first one pressed when it has not arrived yet.
 */
import { drawerOpen } from "./state.ts";
import { closeOverlay } from "./overlays.ts";
import { afterLoad } from "./lazy.tsx";

/** Whether the key press happens while typing (a text box has the focus). */
const typing = (e: KeyboardEvent) => {
  const el = e.target as HTMLElement | null;
  return !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.isContentEditable);
};

/** Ctrl+K or Alt+J (the switcher), `?` (the keys) outside a text box, Alt+arrows and Alt+M. */
function isShortcut(e: KeyboardEvent): boolean {
  const k = e.key.toLowerCase();
  if ((e.ctrlKey && !e.altKey && k === "k") || (e.altKey && !e.ctrlKey && k === "j")) return true;
  if (e.key === "?") return !typing(e) && !e.ctrlKey && !e.altKey;
  return e.altKey && !e.ctrlKey && !e.metaKey &&
    (e.key === "ArrowUp" || e.key === "ArrowDown" || k === "m");
}

/** The app's shortcuts (listed by the `?` overlay); returns whether it handled `e`. */
export function onGlobalKey(e: KeyboardEvent): boolean {
  if (e.key === "Escape") {
    if (closeOverlay()) return true;
    if (drawerOpen.value) {
      drawerOpen.value = false;
      return true;
    }
    return false;
  }
  if (!isShortcut(e)) return false;
  void afterLoad.load().then((m) => m?.runShortcut(e));
  return true;
}
