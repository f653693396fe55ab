/**
 * The app's keyboard shortcuts at work, and the conversation lists they step through: fetched
 * with the after-paint chunk, since keys.ts decides at once which key presses are shortcuts.
 */
import { chatPath, navigate, route } from "./router.ts";
import { api } from "./api.ts";
import { connections, key, mentions, sidebar } from "./state.ts";
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

/** Runs a shortcut `isShortcut` (keys.ts) took: the switcher, the keys' list, or a step. */
export function runShortcut(e: KeyboardEvent): void {
  const k = e.key.toLowerCase();
  if (k === "k" || k === "j") {
    if (overlay.value?.kind === "switcher") closeOverlay();
    else openWhereFocused({ kind: "switcher" });
    return;
  }
  if (e.key === "?") return showKeys();
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
  } else next = stepTo(norm, here, 1, (x) => x.mentions > 0);
  if (!next) return;
  const target = entries[norm.indexOf(next)];
  if (k === "m") void toMention(target.path);
  else navigate(target.path);
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
