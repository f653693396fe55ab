/** Logging in and out, loading the user, and applying the socket's events to the state. */
import { signal } from "@preact/signals";
import { api, ApiFailure, setUnauthorizedHandler } from "./api.ts";
import { EventSocket } from "./socket.ts";
import { sayWords } from "./line_words.ts";
import {
  type ChannelStateEvent,
  LINE_KINDS,
  type MessageType,
  type NotificationEvent,
  type PushedEvent,
  type StateEvent,
  type Words,
} from "../../protocol/events.ts";
import {
  addNick,
  applyUser,
  connections,
  conversations,
  forgetMentions,
  key,
  mentions,
  myNick,
  patchConnection,
  patchConversation,
  pendingJoin,
  removeConversation,
  showToast,
  user,
} from "./state.ts";
import {
  appendLive,
  closeConversation,
  isOpen,
  keepForLater,
  loadNewer,
  markRead,
  messages,
  newerCursor,
  openConv,
  whenLoaded,
} from "./view.ts";
import { chatPath, navigate, route } from "./router.ts";
import { mentionSound } from "./push.ts";
import { chooseLanguage, language, t } from "./i18n.ts";
import { stripFormatting } from "./irc_format.ts";
import type { User } from "./types.ts";
import { applySettings } from "./prefs.ts";
import { tagsChunk } from "./tags_state.ts";
import { at } from "./base.ts";
import {
  forgetMembers,
  joined,
  left,
  type Member,
  members,
  membersMark,
  moded,
  parsePrefix,
  renamed,
  setAwayNick,
  setMembers,
  updateMembers,
} from "./members.ts";

/** The one socket of this tab. */
export const socket = new EventSocket(onEvent, onOpen, () => void refused());

/** When `refused` last asked whether this browser is still logged in. */
let lastAsked = -Infinity;
/** A request of this page's that ends its session and opens another (its own new password). */
let renewal: Promise<unknown> | undefined;

/**
 * Sends `request`, which ends this page's session and gives the browser a new one: the socket's
 * end, which may come before the answer with the new cookie, waits for that answer.
 */
export async function renewingSession<T>(request: () => Promise<T>): Promise<T> {
  const sent = request();
  renewal = sent;
  try {
    return await sent;
  } finally {
    if (renewal === sent) renewal = undefined;
  }
}

/**
 * Why the server refuses this browser's person though it knows them (the login proxy vouches for
 * a suspended account): the login screen says it, since such a person has no password to try.
 */
export const refusal = signal<string | null>(null);

/** Keeps a 403 of the user's own page as the refusal; anything else is left to its caller. */
function noteRefusal(e: unknown): undefined {
  if (e instanceof ApiFailure && e.status === 403) refusal.value = e.errors[0]?.message ?? null;
  return undefined;
}

/**
 * The socket was refused, or its session ended. A password set on this page ends every old
 * session and gives this browser a new one: then the page goes on over a new socket. Otherwise it
 * is logged out (at once when it asked less than 10 s ago, so that a refusal cannot loop).
 */
async function refused(): Promise<void> {
  // why: a renewal that failed is said where it was sent; the session is asked about below.
  await renewal?.catch(() => {});
  const email = user.value?.email;
  if (email && Date.now() - lastAsked > 10_000) {
    lastAsked = Date.now();
    // why: a 401 logs out through the API's handler; any other failure logs out below.
    const me = await api("getUser").catch(noteRefusal);
    if (me?.email === email) return socket.start();
  }
  expire();
}

/** Checks the session at start; shows the login screen without one. */
export async function boot(): Promise<void> {
  setUnauthorizedHandler(expire);
  const asked = route.value; // before a 401 sends it to /login
  try {
    const u = await api("getUser", { query: { connections: true, conversations: true } });
    await loggedIn(u);
  } catch (e) {
    noteRefusal(e);
    await freshInstall(asked);
    user.value = null;
  }
}

/**
 * On a fresh install (no account yet) the first screen is registration, not login; a visit to
 * /login itself is left alone.
 */
async function freshInstall(asked: string): Promise<void> {
  if (/^\/(login|register)/.test(asked)) return;
  try {
    const { first_user } = await api("getInstall");
    if (first_user) navigate("/register", true);
  } catch {
    // why: the hint is a nicety: without it the login screen links to registration.
  }
}

/** Called after login or registration, or at start with a session. */
export async function loggedIn(u: User): Promise<void> {
  refusal.value = null;
  applyUser(u);
  if (!u.connections) {
    applyUser(await api("getUser", { query: { connections: true, conversations: true } }));
  }
  const saved = localStorage.getItem("parley.language");
  if (saved && saved !== language.value) await chooseLanguage(saved);
  socket.start();
}

/** Forgets the session (after logout, a 401 or a refused socket) and shows the login screen. */
export function expire(): void {
  socket.stop();
  closeConversation();
  user.value = null;
  connections.value = {};
  conversations.value = {};
  mentions.value = {};
  if (!/^\/(login|register)/.test(route.value)) navigate("/login", true);
}

/** Logs out on the server (with the csrf token) and locally. */
export async function logout(): Promise<void> {
  const csrf = user.value?.csrf ??
    (await api("getUser").catch(() => ({ csrf: "" }))).csrf ?? "";
  await fetch(at(`/api/user/logout?csrf=${encodeURIComponent(csrf)}`), { redirect: "manual" })
    .catch((err) => console.warn("logout not sent; the session ends here only", err));
  expire();
  // The login is a reverse proxy's: its own logout, or its login would open a session again.
  const away = document.querySelector<HTMLMetaElement>('meta[name="parley-logout"]')?.content;
  if (away) location.assign(away);
}

async function onOpen(reconnect: boolean): Promise<void> {
  const answer = await socket.request({ method: "load" });
  if (answer.event === "load") applyUser(answer.user);
  // Events are not replayed: fetch what the open conversation missed while disconnected, or,
  // on a page load, between its first page and the socket opening.
  if (!openConv.value) return;
  const missed = (err: unknown) => console.warn("missed messages not loaded", err);
  if (reconnect) await loadNewer().catch(missed);
  else {
    await whenLoaded();
    const atEnd = openConv.value && !newerCursor.value && messages.value.length;
    if (atEnd) await loadNewer().catch(missed);
  }
}

/** Asks the server for the members of a channel and replaces its member list. */
export async function loadMembers(cid: string, conv: string): Promise<Member[] | undefined> {
  if (!/^[#&!+]/.test(conv)) return;
  const since = membersMark();
  const a = await socket.request({
    method: "send",
    connection_id: cid,
    conversation_id: conv,
    message: "/names",
  });
  if (a.errors || !Array.isArray(a.names)) return;
  const list: Member[] = a.names.map((n) => ({ nick: n.nick, modes: n.modes ?? [] }));
  setMembers(key(cid, conv), list, since);
  for (const n of a.names) if (n.away) setAwayNick(cid, n.nick, true);
  return list;
}

const onConnection = (cid: string) => (k: string) => k.startsWith(key(cid, ""));
const isMember = (cid: string, conv: string, nick: string) => {
  const list = members.value[key(cid, conv)];
  return !list || list.some((m) => m.nick.toLowerCase() === nick.toLowerCase());
};

const now = () => new Date().toISOString();

/**
 * Shows an event line in `conv` when it is open. `stored`: the time of the same line in the
 * history (the event's `ts`), which is its identity there, so that a page of history holding it
 * does not show it twice; a line of the client's own is placed after the newest shown.
 */
function eventLine(
  cid: string,
  conv: string,
  text: string,
  event: string,
  stored?: string,
  data?: unknown,
): void {
  if (!isOpen(cid, conv)) return;
  const last = messages.value[messages.value.length - 1];
  const ts = stored ??
    (last && last.ts > new Date().toISOString() ? last.ts : new Date().toISOString());
  appendLive({ from: "", message: text, ts, event, ...(data ? { data } : {}) });
}

/** Shows a desktop notification for a mention when the tab is hidden and the user allows it. */
function desktopNotify(f: NotificationEvent): void {
  if (localStorage.getItem("parley.notify") !== "on") return;
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible" && isOpen(f.connection_id, f.conversation_id)) return;
  const n = new Notification(f.conversation_id ? `${f.from} (${f.conversation_id})` : f.from, {
    body: stripFormatting(f.message ?? ""),
    tag: `${f.connection_id}/${f.conversation_id}`,
  });
  n.onclick = () => {
    focus();
    navigate(
      `/chat/${encodeURIComponent(f.connection_id)}/${encodeURIComponent(f.conversation_id)}`,
    );
  };
}

/**
 * Where to go after leaving `conv`: another conversation one can write in, on the same
 * connection first, else the connection's server messages.
 */
function liveConversation(cid: string, conv: string): string {
  const all = Object.values(conversations.value).filter((c) =>
    c.conversation_id !== conv && c.conversation_id !== "" && !c.frozen
  );
  const best = all.find((c) => c.connection_id === cid) ?? all[0];
  return best ? chatPath(best.connection_id, best.conversation_id) : chatPath(cid, "");
}

/** Applies one pushed event (protocol/events.ts declares them). */
function onEvent(f: PushedEvent): void {
  switch (f.event) {
    case "message": {
      const { connection_id: cid, conversation_id: conv } = f;
      addNick(cid, conv, f.from);
      if (!conversations.value[key(cid, conv)] && conv !== "") {
        patchConversation(cid, conv, { name: conv, unread: 0 });
      }
      if (isOpen(cid, conv)) {
        // Its fields as history gives them (the server's msgid and a reply's target with them).
        appendLive({ ...f, event: undefined });
        // Someone else's message counts as unread on the server until the user has seen it.
        if (document.visibilityState === "visible" && f.from !== myNick(cid)) {
          void markRead(cid, conv, true);
        }
      }
      break;
    }
    case "unread": {
      const { connection_id: cid, conversation_id: conv } = f;
      // Read (here or on another device): its mentions are read too.
      if (conv === null) {
        forgetMentions(onConnection(cid));
        for (const c of Object.values(conversations.value)) {
          if (c.connection_id === cid) patchConversation(cid, c.conversation_id, { unread: 0 });
        }
      } else if (conversations.value[key(cid, conv)]) {
        if (f.unread === 0) forgetMentions((k) => k === key(cid, conv));
        const visible = isOpen(cid, conv) && document.visibilityState === "visible";
        patchConversation(cid, conv, { unread: visible ? 0 : f.unread });
        if (visible && f.unread > 0) void markRead(cid, conv, true);
      }
      break;
    }
    case "notification": {
      const { connection_id: cid, conversation_id: conv } = f;
      const visible = isOpen(cid, conv) && document.visibilityState === "visible";
      // A message that notifies only because the conversation's level is "all" is no mention.
      if (!visible && f.highlight !== false) {
        const k = key(cid, conv);
        mentions.value = { ...mentions.value, [k]: (mentions.value[k] ?? 0) + 1 };
        if (user.value) user.value = { ...user.value, unread: user.value.unread + 1 };
      }
      // Filled in from the server's history after a gap: counted above, but news no longer.
      if (f.history) break;
      desktopNotify(f);
      if (f.highlight !== false) mentionSound();
      break;
    }
    case "past":
      // A channel event of the server's history after a gap: in its place, changing nothing.
      if (isOpen(f.connection_id, f.conversation_id)) {
        appendLive({ from: f.from, message: "", ts: f.ts, type: f.type, fields: f.fields });
      }
      break;
    case "notifications":
      // Read on another tab or device (or this one): the notification badge follows, and the
      // conversations' mention badges with it (the notifications page showed them).
      if (user.value) user.value = { ...user.value, unread: f.unread };
      if (f.unread === 0) mentions.value = {};
      break;
    case "client_settings":
      // Changed on another device (or this one): every open device shows the same.
      applySettings(f.settings);
      break;
    case "state":
      onState(f);
      break;
    case "server_notice":
      // An admin's announcement: every open tab shows it, long enough to be read.
      showToast(t("Server notice: {message}", { message: f.message }), 30_000);
      break;
  }
  tagsChunk.get()?.onEvent(f);
}

function onState(f: StateEvent): void {
  const cid = f.connection_id;
  // Before the members change: a quit or a nick change shows where the person was.
  const lines = f.type === "connection" || f.type === "info" ? [] : linesOf(f);
  switch (f.type) {
    case "connection":
      patchConnection(cid, { state: f.state, info: f.info ?? connections.value[cid]?.info });
      // Who is in its channels is unknown until the connection is back and NAMES tells again.
      if (f.state !== "connected") forgetMembers(onConnection(cid));
      eventLine(cid, "", t("Connection state: {state}", { state: t(f.state) }), "state");
      break;
    case "info": {
      // The connection's info, flat in the event (Convos's shape): what the server told since.
      const { event: _e, type: _t, connection_id: _c, ...info } = f;
      patchConnection(cid, { info: { ...(connections.value[cid]?.info ?? {}), ...info } });
      break;
    }
    case "conversation": {
      const conv = f.conversation_id;
      patchConversation(cid, conv, { name: f.name, topic: f.topic, unread: f.unread });
      if (f.detached !== undefined) patchConversation(cid, conv, { detached: f.detached });
      if (pendingJoin.cid === cid && pendingJoin.conv === conv) {
        pendingJoin.cid = "";
        navigate(`/chat/${encodeURIComponent(cid)}/${encodeURIComponent(conv)}`);
      }
      break;
    }
    case "join": {
      const conv = f.conversation_id;
      addNick(cid, conv, f.nick);
      if (f.nick === myNick(cid)) {
        if (conversations.value[key(cid, conv)]?.frozen) {
          patchConversation(cid, conv, { frozen: "" });
        }
        if (isOpen(cid, conv)) void loadMembers(cid, conv);
      } else updateMembers((l) => joined(l, f.nick), (k) => k === key(cid, conv));
      break;
    }
    case "frozen":
      patchConversation(cid, f.conversation_id, { frozen: f.frozen });
      break;
    case "part": {
      const conv = f.conversation_id;
      updateMembers((l) => left(l, f.nick), (k) => k === key(cid, conv));
      // The user left the channel: nothing can be sent there until they join again.
      if (f.nick === myNick(cid) && !f.closed && conversations.value[key(cid, conv)]) {
        patchConversation(cid, conv, { frozen: "parted" });
      }
      // Closed (on any device): gone from the list, as is a private conversation one leaves.
      if (f.closed || (f.nick === myNick(cid) && !/^[#&!+]/.test(conv))) {
        removeConversation(cid, conv);
        if (isOpen(cid, conv)) navigate(liveConversation(cid, conv), true);
        lines.length = 0; // the conversation is gone, and its line with it
      }
      break;
    }
    case "quit":
      updateMembers((l) => left(l, f.nick), onConnection(cid));
      break;
    case "away":
      setAwayNick(cid, f.nick, f.away);
      break;
    case "nick_change": {
      const o = openConv.value;
      if (o && o.cid === cid && isMember(cid, o.conv, f.old_nick)) addNick(cid, o.conv, f.new_nick);
      updateMembers((l) => renamed(l, f.old_nick, f.new_nick), onConnection(cid));
      const c = connections.value[cid];
      if (c && myNick(cid) === f.old_nick) {
        patchConnection(cid, { info: { ...(c.info ?? {}), nick: f.new_nick } });
      }
      break;
    }
    case "rename": {
      const conv = f.conversation_id;
      const old = conversations.value[key(cid, f.old_conversation_id)];
      removeConversation(cid, f.old_conversation_id);
      patchConversation(cid, conv, { ...(old ?? {}), conversation_id: conv, name: f.name });
      break;
    }
    case "topic": {
      const conv = f.conversation_id;
      patchConversation(cid, conv, { topic: f.topic });
      break;
    }
    case "mode": {
      const conv = f.conversation_id;
      if (conv) {
        const prefix = parsePrefix(connections.value[cid]?.info?.prefix);
        updateMembers((l) => moded(l, f.mode ?? "", prefix), (k) => k === key(cid, conv));
      }
      break;
    }
    case "invite": {
      // For the user wherever they are (the server conversation keeps it): its line joins.
      const o = openConv.value;
      const text = t("{nick} invites you to {channel}.", { nick: f.nick, channel: f.name });
      if (o) eventLine(o.cid, o.conv, text, "invite", undefined, { cid, channel: f.name });
      break;
    }
    case "error": {
      // In the conversation it concerns when that exists ("no such nick" in the private
      // conversation with that nick), else where the user is, naming what it is about.
      const where = f.conversation_id ?? "";
      const text = (where ? `${f.conversation_id}: ` : "") + String(f.message ?? f.error ?? "");
      if (isOpen(cid, where)) eventLine(cid, where, text, "error");
      else {
        // The user may be on the way there (a /msg opens the conversation after its answer).
        if (where) keepForLater(cid, where, { from: "", message: text, ts: now(), event: "error" });
        const known = where === "" || conversations.value[key(cid, where)];
        if (!known && openConv.value?.cid === cid) {
          eventLine(cid, openConv.value.conv, text, "error");
        }
      }
      break;
    }
  }
  for (const show of lines) show();
}

type Row = (typeof LINE_KINDS)[MessageType];

/** The kinds of line each state event brings (LINE_KINDS), by the event's type. */
const LIVE = new Map<string, [MessageType, Row][]>();
for (const [kind, row] of Object.entries(LINE_KINDS) as [MessageType, Row][]) {
  LIVE.set(row.live, [...(LIVE.get(row.live) ?? []), [kind, row]]);
}

/**
 * The lines a state event brings, in the words its kinds declare (protocol/events.ts): each shows
 * itself in the conversation it concerns when that is open. Worked out before the event changes
 * the members, as a quit or nick change is shown only where the person was.
 */
function linesOf(f: ChannelStateEvent): (() => void)[] {
  const cid = f.connection_id;
  const field = (name: string) => (f as unknown as Record<string, unknown>)[name];
  const out: (() => void)[] = [];
  for (const [kind, row] of LIVE.get(f.type) ?? []) {
    if (!("line" in row) || kind === "react") continue;
    if (row.line === "stored") {
      const { conversation_id: conv, message, ts } = f as unknown as Record<string, string>;
      out.push(() => isOpen(cid, conv) && appendLive({ from: "", message, ts, type: kind }));
      continue;
    }
    const w: Words<Record<string, unknown>> = row.line;
    if ((w.when && !field(w.when)) || (w.unless && field(w.unless))) continue;
    let conv = String(field("conversation_id") ?? "");
    if (w.member) {
      // Only where the person was: their name in a channel they were not in is noise.
      const o = openConv.value;
      if (!o || o.cid !== cid || !isMember(cid, o.conv, String(field(w.member)))) continue;
      conv = o.conv;
    }
    const text = sayWords(w, field);
    // A line of one channel has its stored time; a quit's or nick change's is one per channel.
    const stored = w.member ? undefined : field("ts") as string | undefined;
    out.push(() => eventLine(cid, conv, text, kind, stored));
  }
  return out;
}
