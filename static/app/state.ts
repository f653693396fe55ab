/** The application state as signals: who is logged in, connections, conversations, mentions. */
import { computed, effect, signal } from "@preact/signals";
import type { Connection, Conversation, User } from "./types.ts";
import { route } from "./router.ts";
import { tabTitle } from "./title.ts";

/** The logged-in user, or null; undefined while the first check runs. */
export const user = signal<User | null | undefined>(undefined);
/** The user's connections, by connection_id. */
export const connections = signal<Record<string, Connection>>({});
/** The user's conversations, by `key(cid, conv)`. */
export const conversations = signal<Record<string, Conversation>>({});
/**
 * Unread mentions per conversation key: the server's count (a conversation's `notifications`,
 * mentions since it and the notifications page were last read), then kept live.
 */
export const mentions = signal<Record<string, number>>({});
/** Nicks seen per conversation key, for completion and colours. */
export const nicks = new Map<string, Set<string>>();
/** The socket's state, shown in the sidebar. */
export const socketState = signal<"connecting" | "open" | "closed">("connecting");
/** Whether the sidebar drawer is open (narrow screens). */
export const drawerOpen = signal(false);
/** The away message per connection id, from the user's /away until they are back. */
export const away = signal<Record<string, string>>({});
/** A short message shown at the bottom of the screen. */
export const toast = signal<string>("");

/** The key of a conversation in the maps above. */
export const key = (cid: string, conv: string) => `${cid}\u0000${conv}`;

/** Whether the user is an admin. */
export const isAdmin = computed(() => !!user.value?.roles?.includes("admin"));

/** Conversations grouped by connection, channels first, each sorted by name. */
export const sidebar = computed(() => {
  const groups = Object.values(connections.value)
    .sort((a, b) => a.connection_id.localeCompare(b.connection_id))
    .map((c) => ({ connection: c, conversations: [] as Conversation[] }));
  const byId = new Map(groups.map((g) => [g.connection.connection_id, g]));
  for (const conv of Object.values(conversations.value)) {
    if (conv.conversation_id === "") continue;
    byId.get(conv.connection_id)?.conversations.push(conv);
  }
  for (const g of groups) {
    g.conversations.sort((a, b) => {
      const ca = /^[#&]/.test(a.name) ? 0 : 1, cb = /^[#&]/.test(b.name) ? 0 : 1;
      return ca - cb || a.name.toLowerCase().localeCompare(b.name.toLowerCase());
    });
  }
  return groups;
});

/** Replaces all lists from a loaded user (getUser or the socket's `load`). */
export function applyUser(u: User): void {
  const prev = user.value;
  user.value = { ...u, csrf: u.csrf ?? prev?.csrf };
  if (u.connections) {
    connections.value = Object.fromEntries(u.connections.map((c) => [c.connection_id, c]));
  }
  if (u.conversations) {
    conversations.value = Object.fromEntries(
      u.conversations.map((c) => [key(c.connection_id, c.conversation_id), c]),
    );
    mentions.value = Object.fromEntries(
      u.conversations.filter((c) => (c.notifications ?? 0) > 0)
        .map((c) => [key(c.connection_id, c.conversation_id), c.notifications!]),
    );
  }
}

/** Updates one conversation (or adds it). */
export function patchConversation(cid: string, conv: string, patch: Partial<Conversation>): void {
  const k = key(cid, conv);
  const old = conversations.value[k] ??
    { connection_id: cid, conversation_id: conv, name: conv, unread: 0 };
  conversations.value = { ...conversations.value, [k]: { ...old, ...patch } };
}

/** Removes one conversation. */
export function removeConversation(cid: string, conv: string): void {
  const next = { ...conversations.value };
  delete next[key(cid, conv)];
  conversations.value = next;
  forgetMentions((k) => k === key(cid, conv));
}

/** Clears the mention counts of the conversations whose keys `which` picks. */
export function forgetMentions(which: (k: string) => boolean): void {
  const kept = Object.entries(mentions.value).filter(([k]) => !which(k));
  if (kept.length < Object.keys(mentions.value).length) mentions.value = Object.fromEntries(kept);
}

/** Updates one connection (or adds it). */
export function patchConnection(cid: string, patch: Partial<Connection>): void {
  const old = connections.value[cid] ?? { connection_id: cid, url: "" };
  connections.value = { ...connections.value, [cid]: { ...old, ...patch } };
}

/** Removes a connection and its conversations. */
export function removeConnection(cid: string): void {
  const next = { ...connections.value };
  delete next[cid];
  connections.value = next;
  conversations.value = Object.fromEntries(
    Object.entries(conversations.value).filter(([, c]) => c.connection_id !== cid),
  );
}

/** Remembers that `nick` speaks in a conversation. */
export function addNick(cid: string, conv: string, nick: string): void {
  if (!nick || nick.includes(".")) return; // server names are not nicks
  const k = key(cid, conv);
  let set = nicks.get(k);
  if (!set) nicks.set(k, set = new Set());
  set.delete(nick);
  set.add(nick); // most recent last
}

/** Adds a nick as the least recent speaker (channel members who have not spoken yet). */
export function addNickFirst(cid: string, conv: string, nick: string): void {
  const k = key(cid, conv);
  nicks.set(k, new Set([nick, ...(nicks.get(k) ?? [])]));
}

/** The user's current nick on a connection. */
export function myNick(cid: string): string {
  const c = connections.value[cid];
  const info = c?.info as { nick?: string } | undefined;
  if (info?.nick) return info.nick;
  const m = /[?&]nick=([^&]+)/.exec(c?.url ?? "");
  return m ? decodeURIComponent(m[1]) : "";
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;
/** Shows a short message for a few seconds (`ms`). */
export function showToast(text: string, ms = 5000): void {
  toast.value = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toast.value = ""), ms);
}

/** A channel the user just asked to join, opened when the server confirms it. */
export const pendingJoin = { cid: "", conv: "" };

/** Unread messages over all conversations, and mentions (the tab title and the menu show them). */
export const totals = computed(() => {
  let unread = 0, mention = 0;
  // A muted conversation does not count.
  for (const c of Object.values(conversations.value)) {
    if (c.notify !== "muted") unread += c.unread;
  }
  for (const n of Object.values(mentions.value)) mention += n;
  return { unread, mention };
});

// "(2) #busy - Parley" in the tab and the task bar: where the user is, and what mentions them.
effect(() => {
  document.title = tabTitle(route.value, conversations.value, mentions.value, key);
});
