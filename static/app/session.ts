/** Logging in and out, loading the user, and applying the socket's events to the state. */
import { api, setUnauthorizedHandler } from "./api.ts";
import { EventSocket } from "./socket.ts";
import type { NotificationEvent, PushedEvent, StateEvent } from "../../lib/events.ts";
import {
  addNick,
  applyUser,
  connections,
  conversations,
  key,
  mentions,
  myNick,
  patchConnection,
  patchConversation,
  pendingJoin,
  removeConversation,
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
import {
  joined,
  left,
  type Member,
  members,
  moded,
  parsePrefix,
  renamed,
  setMembers,
  updateMembers,
} from "./members.ts";

/** The one socket of this tab. */
export const socket = new EventSocket(onEvent, onOpen, () => expire());

/** Checks the session at start; shows the login screen without one. */
export async function boot(): Promise<void> {
  setUnauthorizedHandler(expire);
  const asked = route.value; // before a 401 sends it to /login
  try {
    const u = await api("getUser", { query: { connections: true, conversations: true } });
    await loggedIn(u);
  } catch {
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
    // The hint is a nicety: without it the login screen links to registration.
  }
}

/** Called after login or registration, or at start with a session. */
export async function loggedIn(u: User): Promise<void> {
  applyUser(u);
  if (!u.connections) {
    applyUser(await api("getUser", { query: { connections: true, conversations: true } }));
  }
  const saved = localStorage.getItem("parley.language");
  if (saved && saved !== language.value) await chooseLanguage(saved);
  socket.start();
  void loadMentions();
}

/** Counts unread mentions per conversation from the newest `user.unread` notifications. */
async function loadMentions(): Promise<void> {
  const unread = user.value?.unread ?? 0;
  if (!unread) return;
  try {
    const res = await api("notificationMessages");
    const counts: Record<string, number> = {};
    for (const n of (res.messages ?? []).slice(0, unread)) {
      if (n.connection_id === undefined || n.conversation_id === undefined) continue;
      const k = key(n.connection_id, n.conversation_id);
      const conv = conversations.value[k];
      if (conv && conv.unread > 0) counts[k] = (counts[k] ?? 0) + 1;
    }
    mentions.value = counts;
  } catch {
    // Notifications are optional decoration of the sidebar.
  }
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
  await fetch(`/api/user/logout?csrf=${encodeURIComponent(csrf)}`, { redirect: "manual" })
    .catch(() => {});
  expire();
}

async function onOpen(reconnect: boolean): Promise<void> {
  const answer = await socket.request({ method: "load" });
  if (answer.event === "load") applyUser(answer.user);
  // Events are not replayed: fetch what the open conversation missed while disconnected, or,
  // on a page load, between its first page and the socket opening.
  if (!openConv.value) return;
  if (reconnect) await loadNewer().catch(() => {});
  else {
    await whenLoaded();
    const atEnd = openConv.value && !newerCursor.value && messages.value.length;
    if (atEnd) await loadNewer().catch(() => {});
  }
}

/** Asks the server for the members of a channel and replaces its member list. */
export async function loadMembers(cid: string, conv: string): Promise<Member[] | undefined> {
  if (!/^[#&!+]/.test(conv)) return;
  const a = await socket.request({
    method: "send",
    connection_id: cid,
    conversation_id: conv,
    message: "/names",
  });
  if (a.errors || !Array.isArray(a.names)) return;
  const list: Member[] = a.names.map((n) => ({ nick: n.nick, modes: n.modes ?? [] }));
  setMembers(key(cid, conv), list);
  return list;
}

const onConnection = (cid: string) => (k: string) => k.startsWith(key(cid, ""));
const isMember = (cid: string, conv: string, nick: string) => {
  const list = members.value[key(cid, conv)];
  return !list || list.some((m) => m.nick.toLowerCase() === nick.toLowerCase());
};

const now = () => new Date().toISOString();

function eventLine(cid: string, conv: string, text: string, event: string): void {
  if (!isOpen(cid, conv)) return;
  const last = messages.value[messages.value.length - 1];
  const ts = last && last.ts > new Date().toISOString() ? last.ts : new Date().toISOString();
  appendLive({ from: "", message: text, ts, event });
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
export function liveConversation(cid: string, conv: string): string {
  const all = Object.values(conversations.value).filter((c) =>
    c.conversation_id !== conv && c.conversation_id !== "" && !c.frozen
  );
  const best = all.find((c) => c.connection_id === cid) ?? all[0];
  return best ? chatPath(best.connection_id, best.conversation_id) : chatPath(cid, "");
}

/** Applies one pushed event (lib/events.ts declares them). */
function onEvent(f: PushedEvent): void {
  switch (f.event) {
    case "message": {
      const { connection_id: cid, conversation_id: conv } = f;
      addNick(cid, conv, f.from);
      if (!conversations.value[key(cid, conv)] && conv !== "") {
        patchConversation(cid, conv, { name: conv, unread: 0 });
      }
      if (isOpen(cid, conv)) {
        appendLive({
          from: f.from,
          message: f.message,
          ts: f.ts,
          type: f.type,
          highlight: f.highlight,
        });
        // Someone else's message counts as unread on the server until the user has seen it.
        if (document.visibilityState === "visible" && f.from !== myNick(cid)) {
          void markRead(cid, conv, true);
        }
      }
      break;
    }
    case "unread": {
      const { connection_id: cid, conversation_id: conv } = f;
      if (conv === null) {
        for (const c of Object.values(conversations.value)) {
          if (c.connection_id === cid) patchConversation(cid, c.conversation_id, { unread: 0 });
        }
      } else if (conversations.value[key(cid, conv)]) {
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
      desktopNotify(f);
      if (f.highlight !== false) mentionSound();
      break;
    }
    case "notifications":
      // Read on another tab or device (or this one): the notification badge follows.
      if (user.value) user.value = { ...user.value, unread: f.unread };
      break;
    case "state":
      onState(f);
      break;
  }
}

function onState(f: StateEvent): void {
  const cid = f.connection_id;
  switch (f.type) {
    case "connection":
      patchConnection(cid, { state: f.state, info: f.info ?? connections.value[cid]?.info });
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
      eventLine(cid, conv, t("{nick} joined", { nick: f.nick }), "join");
      break;
    }
    case "frozen":
      patchConversation(cid, f.conversation_id, { frozen: f.frozen });
      break;
    case "part": {
      const conv = f.conversation_id;
      updateMembers((l) => left(l, f.nick), (k) => k === key(cid, conv));
      // The user left the channel: nothing can be sent there until they join again.
      if (f.nick === myNick(cid) && conversations.value[key(cid, conv)]) {
        patchConversation(cid, conv, { frozen: "parted" });
      }
      if (f.nick === myNick(cid) && !/^[#&!+]/.test(conv)) {
        removeConversation(cid, conv);
        if (isOpen(cid, conv)) navigate(liveConversation(cid, conv), true);
        break;
      }
      eventLine(
        cid,
        conv,
        // A kick is a part with `kicker`, as Convos sends it.
        (f.kicker
          ? t("{nick} was kicked by {by}", { nick: f.nick, by: f.kicker })
          : t("{nick} left", { nick: f.nick })) + (f.message ? ` (${f.message})` : ""),
        "part",
      );
      break;
    }
    case "quit": {
      const o = openConv.value;
      // Only where the quitter was: their name in a channel they were not in is noise.
      const was = o && o.cid === cid && isMember(cid, o.conv, f.nick);
      updateMembers((l) => left(l, f.nick), onConnection(cid));
      if (o && was) {
        eventLine(
          cid,
          o.conv,
          t("{nick} quit", { nick: f.nick }) +
            (f.message ? ` (${f.message})` : ""),
          "part",
        );
      }
      break;
    }
    case "nick_change": {
      const o = openConv.value;
      const was = o && o.cid === cid && isMember(cid, o.conv, f.old_nick);
      updateMembers((l) => renamed(l, f.old_nick, f.new_nick), onConnection(cid));
      if (o && was) {
        addNick(cid, o.conv, f.new_nick);
        eventLine(
          cid,
          o.conv,
          t("{old} is now known as {new}", {
            old: f.old_nick,
            new: f.new_nick,
          }),
          "nick",
        );
      }
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
      if (f.nick) {
        eventLine(
          cid,
          conv,
          t("{nick} changed the topic to: {topic}", {
            nick: f.nick,
            topic: f.topic,
          }),
          "topic",
        );
      }
      break;
    }
    case "mode": {
      const conv = f.conversation_id;
      if (conv) {
        const prefix = parsePrefix(connections.value[cid]?.info?.prefix);
        updateMembers((l) => moded(l, f.mode ?? "", prefix), (k) => k === key(cid, conv));
        eventLine(
          cid,
          conv,
          t("{nick} sets mode {mode}", {
            nick: f.nick ?? "",
            mode: f.mode,
          }),
          "mode",
        );
      }
      break;
    }
    case "gap": {
      if (isOpen(cid, f.conversation_id)) {
        appendLive({ from: "", message: f.message, ts: f.ts, type: "gap" });
      }
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
}
