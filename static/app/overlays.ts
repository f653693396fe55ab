/** Which overlay is open (the quick switcher, the list of keys, a nick's menu): one at a time. */
import { signal } from "@preact/signals";

/** A nick's menu: where it was opened and about whom. */
export interface NickMenuAt {
  cid: string;
  conv: string;
  nick: string;
  x: number;
  y: number;
}

/** A conversation's menu in the sidebar: where it was opened and for which conversation. */
export interface ConvMenuAt {
  cid: string;
  conv: string;
  x: number;
  y: number;
}

/** The open overlay, or null. */
export const overlay = signal<
  | { kind: "switcher" }
  | { kind: "keys" }
  | { kind: "nick"; at: NickMenuAt }
  | { kind: "conv"; at: ConvMenuAt }
  | null
>(null);

/** Opens the list of keyboard shortcuts. */
export function showKeys(): void {
  openWhereFocused({ kind: "keys" });
}

/** Opens `o`; closing it gives the focus back to what had it (the message box, most often). */
export function openWhereFocused(o: { kind: "keys" } | { kind: "switcher" }): void {
  const had = document.activeElement;
  returnTo = had instanceof HTMLElement ? [had] : [];
  overlay.value = o;
}

/**
 * Where the focus goes back when a nick's menu closes: the nick that opened it, or (a nick that
 * takes no focus) what had the focus before. Without it the focus was left on nothing.
 */
let returnTo: HTMLElement[] = [];

/** Closes whatever overlay is open; true when one was. */
export function closeOverlay(): boolean {
  if (!overlay.value) return false;
  overlay.value = null;
  const back = returnTo;
  returnTo = [];
  for (const el of back) {
    if (!el.isConnected) continue;
    el.focus({ preventScroll: true }); // the nick is where it was: nothing to scroll
    if (document.activeElement === el) break;
  }
  return true;
}

/**
 * Opens the menu of `nick` (from a click or a right-click on `el`) for the conversation `conv`,
 * just below the nick so that it stays readable.
 */
export function openNickMenu(
  cid: string,
  conv: string,
  nick: string,
  e: MouseEvent,
  el?: Element,
): void {
  const r = el?.getBoundingClientRect();
  const x = r ? r.left : e.clientX, y = r ? r.bottom + 2 : e.clientY;
  returnTo = [el ?? e.currentTarget, document.activeElement]
    .filter((f): f is HTMLElement => f instanceof HTMLElement);
  overlay.value = { kind: "nick", at: { cid, conv, nick, x, y } };
}

/** Opens a sidebar conversation's menu (a right-click or a long press on its entry). */
export function openConvMenu(cid: string, conv: string, e: MouseEvent): void {
  returnTo = [];
  overlay.value = { kind: "conv", at: { cid, conv, x: e.clientX, y: e.clientY } };
}
