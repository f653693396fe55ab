/** Keyboard shortcuts over the whole app, and the conversation lists they step through. */
import { chatPath, navigate, route } from "./router.ts";
import { api } from "./api.ts";
import { connections, drawerOpen, key, mentions, sidebar } from "./state.ts";
import { pinnedFirst } from "./prefs.ts";
import { connectionTitle } from "./conn_status.ts";
import { closeOverlay, openWhereFocused, overlay, showKeys } from "./overlays.ts";

/** One conversation as the switcher and the shortcuts see it. */
interface Entry {
  path: string;
  label: string;
  /** The connection's title. */
  where: string;
  unread: number;
  mentions: number;
}

/** Every conversation in sidebar order, each connection's server messages first. */
export function switcherEntries(): Entry[] {
  return sidebar.value.flatMap((g) => {
    const cid = g.connection.connection_id;
    const where = connectionTitle(connections.value[cid], cid);
    return [
      { path: chatPath(cid, ""), label: where, where, unread: 0, mentions: 0 },
      ...pinnedFirst(g.conversations).map((c) => ({
        path: chatPath(cid, c.conversation_id),
        label: c.name,
        where,
        unread: c.unread,
        mentions: mentions.value[key(cid, c.conversation_id)] ?? 0,
      })),
    ];
  });
}

/** Entries whose name contains `q` (case-insensitively): names starting with it first. */
export function switcherMatches(entries: Entry[], q: string): Entry[] {
  const want = q.trim().toLowerCase().replace(/^[#&]/, "");
  if (!want) return entries;
  const bare = (e: Entry) => e.label.toLowerCase().replace(/^[#&]/, "");
  const starts = entries.filter((e) => bare(e).startsWith(want));
  const within = entries.filter((e) => !bare(e).startsWith(want) && bare(e).includes(want));
  return [...starts, ...within];
}

/** The next (or previous, `step` -1) entry after the open one that passes `want`. */
function stepTo(entries: Entry[], here: string, step: 1 | -1, want = (_: Entry) => true) {
  const at = entries.findIndex((e) => e.path === here);
  for (let i = 1; i <= entries.length; i++) {
    const e = entries[(at + step * i + entries.length * 2) % entries.length];
    if (e.path !== here && want(e)) return e;
  }
  return undefined;
}

/** Whether the key press happens while typing (a text box has the focus). */
const typing = (e: KeyboardEvent) => {
  const el = e.target as HTMLElement | null;
  return !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.isContentEditable);
};

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
  const k = e.key.toLowerCase();
  if ((e.ctrlKey && !e.altKey && k === "k") || (e.altKey && !e.ctrlKey && k === "j")) {
    if (overlay.value?.kind === "switcher") closeOverlay();
    else openWhereFocused({ kind: "switcher" });
    return true;
  }
  if (e.key === "?" && !typing(e) && !e.ctrlKey && !e.altKey) {
    showKeys();
    return true;
  }
  if (!e.altKey || e.ctrlKey || e.metaKey) return false;
  const here = decodeURIComponent(route.value.split("?")[0]);
  const entries = switcherEntries();
  const at = (e: Entry) => decodeURIComponent(e.path);
  const norm = entries.map((x) => ({ ...x, path: at(x) }));
  let next: Entry | undefined;
  if (e.key === "ArrowUp" || e.key === "ArrowDown") {
    const step = e.key === "ArrowUp" ? -1 : 1;
    next = e.shiftKey
      ? stepTo(norm, here, step, (x) => x.unread > 0 || x.mentions > 0)
      : stepTo(norm, here, step);
  } else if (k === "m") {
    next = stepTo(norm, here, 1, (x) => x.mentions > 0);
  } else return false;
  if (!next) return true;
  const target = entries[norm.indexOf(next)];
  if (k === "m") void toMention(target.path);
  else navigate(target.path);
  return true;
}

/** Opens the conversation at `path` at its newest mention (the notifications say where). */
async function toMention(path: string): Promise<void> {
  let at: string | undefined;
  try {
    const { messages = [] } = await api("notificationMessages");
    at = messages.find((m) =>
      decodeURIComponent(chatPath(m.connection_id ?? "", m.conversation_id ?? "")) ===
        decodeURIComponent(path)
    )?.ts;
  } catch {
    // why: without the notifications, the conversation opens at its end.
  }
  navigate(at ? `${path}?around=${encodeURIComponent(at)}` : path);
}
