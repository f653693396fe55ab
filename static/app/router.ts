/** Client-side routing: the path is a signal; links and code call navigate(). */
import { signal } from "@preact/signals";
import { at, BASE } from "./base.ts";

/** The app path of an address's path (Parley's path on its host taken off). */
const inApp = (path: string) =>
  path === BASE || path.startsWith(BASE + "/") ? path.slice(BASE.length) || "/" : path;

/** The page's app path plus query string. */
const here = () => inApp(location.pathname) + location.search;

/** The current path plus query string. */
export const route = signal(globalThis.location ? here() : "/");

/** Goes to `path` (adding a history entry unless `replace`). */
export function navigate(path: string, replace = false): void {
  if (path === route.value) return;
  if (replace) history.replaceState(null, "", at(path));
  else history.pushState(null, "", at(path));
  route.value = path;
}

globalThis.addEventListener?.("popstate", () => {
  route.value = here();
});

/** The path of a conversation's screen; the server conversation is `/chat/<cid>`. */
export function chatPath(cid: string, conv: string, around?: string): string {
  const base = `/chat/${encodeURIComponent(cid)}` + (conv ? `/${encodeURIComponent(conv)}` : "");
  return around ? `${base}?around=${encodeURIComponent(around)}` : base;
}

/** Splits the current route into path segments (decoded) and query parameters. */
export function parseRoute(r: string): { parts: string[]; params: URLSearchParams } {
  const [path, q = ""] = r.split("?", 2);
  const parts = path.split("/").filter(Boolean).map((p) => decodeURIComponent(p));
  return { parts, params: new URLSearchParams(q) };
}

/** A click handler for in-app links that keeps ctrl/middle clicks working. */
export function linkClick(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  navigate(inApp(a.getAttribute("href")!));
}

const LAST = "parley.lastConversation";

/** Remembers the conversation open on this device, where opening Parley returns. */
export function rememberConversation(cid: string, conv: string): void {
  try {
    localStorage.setItem(LAST, JSON.stringify([cid, conv]));
  } catch {
    // why: storage refused (private mode, full): opening Parley shows the first conversation.
  }
}

/** The conversation last open on this device, if any was. */
export function lastConversation(): { cid: string; conv: string } | null {
  try {
    const v = JSON.parse(localStorage.getItem(LAST) ?? "null");
    if (Array.isArray(v) && typeof v[0] === "string" && typeof v[1] === "string") {
      return { cid: v[0], conv: v[1] };
    }
  } catch {
    // why: unreadable: as if none was.
  }
  return null;
}
