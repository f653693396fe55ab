/**
 * soju.im/webpush: an attached IRC client (Goguma) registers a Web Push subscription with
 * `WEBPUSH REGISTER <endpoint> <keys>` and is pushed the IRC line of each mention or private
 * message while it is away, by the web client's own delivery (push/notify.ts: the same endpoint
 * rule, per-user cap and rate, and the conversation's notification level, which decides which
 * events there are at all).
 *
 * "Away" for an IRC client: not attached. A subscription is skipped while a session that
 * registered it is attached (it sees the line live), or one logged in under the same client name
 * (`EMAIL/NETWORK@CLIENT`) when it has one. Browsers and other IRC clients do not hold it back:
 * they are other devices. A subscription lives as long as what its client logged in with: once
 * that app token is revoked or the password changed, it is removed at its next push.
 */
import { actionWrap } from "../irc/protocol/ctcp.ts";
import { ERR_UNKNOWNCOMMAND } from "../irc/protocol/numerics.ts";
import { log } from "../lib/log.ts";
import { msgidOf } from "../lib/msgid.ts";
import { parseMicros } from "../protocol/time.ts";
import type { NotificationEvent } from "../protocol/events.ts";
import type { Push } from "../push/mod.ts";
import { endpointProblem } from "../push/endpoint.ts";
import { PUSH_LIMITS, type PushSource, type PushTarget } from "../push/notify.ts";
import type { ConnectionRecord } from "../store/connections.ts";
import type { IrcPushSubscriptionRecord } from "../store/push.ts";
import { ircTime } from "./history/lines.ts";
import { type Credential, credentialHolds } from "./credentials.ts";
import type { BouncerContext, Session } from "./session.ts";
import { formatMessage, type IrcMessage } from "../irc/protocol/message.ts";

/** The endpoints each session registered while attached. */
const registered = new WeakMap<Session, Set<string>>();

const KEY = { p256dh: /^[\w-]{87}={0,2}$/, auth: /^[\w-]{22}={0,2}$/ };

/**
 * The `<keys>` parameter (message-tag form: `p256dh=...;auth=...`), or why it is not one.
 *
 * @internal test seam
 */
export function parseKeys(text: string): { p256dh: string; auth: string } | string {
  const keys = new Map<string, string>();
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) keys.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const p256dh = keys.get("p256dh") ?? "";
  const auth = keys.get("auth") ?? "";
  if (!KEY.p256dh.test(p256dh)) return "p256dh must be a P-256 public key in base64url";
  if (!KEY.auth.test(auth)) return "auth must be 16 bytes in base64url";
  return { p256dh: p256dh.replace(/=+$/, ""), auth: auth.replace(/=+$/, "") };
}

/** An https URL of at most 2,048 characters (push services are HTTPS, RFC 8030), or undefined. */
function endpointUrl(text: string): URL | undefined {
  if (text.length > 2048) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `WEBPUSH REGISTER|UNREGISTER ...`, answered as the spec says (the line back, or FAIL). */
export async function webpushCommand(s: Session, m: IrcMessage): Promise<void> {
  const push = s.cx.services?.push;
  if (!push || !s.caps.has("soju.im/webpush")) {
    return s.numeric(ERR_UNKNOWNCOMMAND, "WEBPUSH", "Unknown command");
  }
  const raw = m.tags.get("label");
  // As labelOf: at most 64 bytes, one word.
  const label = raw && new TextEncoder().encode(raw).length <= 64 && !/[\s;]/.test(raw)
    ? raw
    : undefined;
  const sub = (m.params[0] ?? "").toUpperCase();
  // Echoed as middle parameters: one word, else `*` (a trailing `:a b` would break the line).
  const word = (w: string | undefined) => w && /^[^\s:]\S*$/.test(w) ? w : "*";
  const endpoint = word(m.params[1]);
  const fail = (code: string, text: string) =>
    s.reply("FAIL", ["WEBPUSH", code, word(sub.slice(0, 32)), endpoint, text], label);
  const login = s.login!;
  const userId = login.user.id;
  if (sub === "UNREGISTER") {
    if (m.params.length !== 2) {
      return fail("INVALID_PARAMS", "Usage: WEBPUSH UNREGISTER <endpoint>");
    }
    if (endpoint !== m.params[1]) {
      return fail("INVALID_PARAMS", "The endpoint must be an https URL");
    }
    try {
      await s.cx.store.push.removeIrc(endpoint, userId);
    } catch (err) {
      log.warn("webpush unregister failed", { uid: userId, error: err });
      return fail("INTERNAL_ERROR", "The subscription could not be removed");
    }
    registered.get(s)?.delete(endpoint);
    return s.reply("WEBPUSH", ["UNREGISTER", endpoint], label);
  }
  if (sub !== "REGISTER") {
    return fail("INVALID_PARAMS", "Unknown subcommand: REGISTER or UNREGISTER");
  }
  if (m.params.length !== 3) {
    return fail("INVALID_PARAMS", "Usage: WEBPUSH REGISTER <endpoint> <keys>");
  }
  const url = endpoint === m.params[1] ? endpointUrl(endpoint) : undefined;
  if (!url) return fail("INVALID_PARAMS", "The endpoint must be an https URL");
  const keys = parseKeys(m.params[2]);
  if (typeof keys === "string") return fail("INVALID_PARAMS", keys);
  const problem = await endpointProblem(url, push.notifier.policy);
  if (problem) return fail("INVALID_PARAMS", problem);
  let saved: boolean;
  try {
    saved = await s.cx.store.push.saveIrcWithin({
      endpoint,
      userId,
      connection: s.hub ? login.connection?.id ?? null : null,
      client: login.identity.client,
      credential: JSON.stringify(login.credential ?? null),
      ...keys,
    }, PUSH_LIMITS.subscriptions);
  } catch (err) {
    log.warn("webpush register failed", { uid: userId, error: err });
    return fail("INTERNAL_ERROR", "The subscription could not be saved");
  }
  if (!saved) {
    return fail(
      "INTERNAL_ERROR",
      `At most ${PUSH_LIMITS.subscriptions} browsers and clients get notifications: unregister one`,
    );
  }
  let mine = registered.get(s);
  if (!mine) registered.set(s, mine = new Set());
  mine.add(endpoint);
  s.reply("WEBPUSH", ["REGISTER", endpoint], label);
}

/** The credential a subscription was registered with; undefined when none was told. */
function credentialOf(sub: IrcPushSubscriptionRecord): Credential | undefined {
  try {
    return JSON.parse(sub.credential) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Whether the client of a subscription is attached now (so it needs no push). */
function present(cx: BouncerContext, sub: IrcPushSubscriptionRecord): boolean {
  for (const s of cx.logins.get(sub.userId) ?? []) {
    if (!s.registered) continue;
    if (registered.get(s)?.has(sub.endpoint)) return true;
    if (sub.client && s.login?.identity.client === sub.client) return true;
  }
  return false;
}

/**
 * The IRC line a notification was: `@time;msgid :nick PRIVMSG <target> :text`, the target the
 * channel or, for a private message, the user's nick, as the client would have received it.
 */
async function pushLine(
  cx: BouncerContext,
  conn: ConnectionRecord,
  ev: NotificationEvent,
): Promise<string> {
  const hub = cx.relay.existing(conn.userId, conn.connectionId);
  const name = ev.conversation_id;
  const channel = hub ? hub.isChannel(name) : /^[#&]/.test(name);
  const target = channel ? hub?.state.channel(name)?.name ?? name : hub?.nick ?? (conn.nick || "*");
  // The sender by nick: Parley keeps no address book of other people (their user and host).
  const prefix = ev.from;
  const tags = new Map<string, string>();
  const us = parseMicros(ev.ts);
  if (us !== null) {
    tags.set("time", ircTime(us));
    // The stored line's own id, the one CHATHISTORY gives: the client finds the line by it.
    // why: without the conversation the line goes without its msgid tag, still delivered
    const conv = await cx.store.conversations.get(conn.id, name).catch(() => undefined);
    if (conv) tags.set("msgid", msgidOf(conv.id, us));
  }
  const text = ev.type === "action" ? actionWrap(ev.message) : ev.message;
  const command = ev.type === "notice" ? "NOTICE" : "PRIVMSG";
  return formatMessage({ command, params: [target, text], prefix, tags });
}

/**
 * The push source of IRC clients' subscriptions (added to the notifier by the bouncer).
 *
 * @internal test seam
 */
export function ircPushSource(cx: BouncerContext): PushSource {
  return async (userId, ev): Promise<PushTarget[]> => {
    const subs = await cx.store.push.ircForUser(userId);
    if (subs.length === 0) return [];
    const conn = await cx.store.connections.get(userId, ev.connection_id);
    if (!conn) return [];
    const candidates = subs.filter((s) =>
      (s.connection === null || s.connection === conn.id) && !present(cx, s)
    );
    if (candidates.length === 0) return [];
    const user = await cx.store.users.byId(userId);
    if (!user) return [];
    const wanted: IrcPushSubscriptionRecord[] = [];
    for (const s of candidates) {
      if (await credentialHolds(cx.store, user, credentialOf(s))) wanted.push(s);
      else await cx.store.push.removeIrc(s.endpoint);
    }
    if (wanted.length === 0) return [];
    const payload = await pushLine(cx, conn, ev);
    return wanted.map((s) => ({
      endpoint: s.endpoint,
      p256dh: s.p256dh,
      auth: s.auth,
      payload,
      userId,
      remove: () => cx.store.push.removeIrc(s.endpoint),
    }));
  };
}

/** Starts pushing to IRC clients' subscriptions; returns the way to stop. */
export function startWebPush(cx: BouncerContext, push: Push): () => void {
  const source = ircPushSource(cx);
  push.notifier.sources.add(source);
  return () => push.notifier.sources.delete(source);
}
