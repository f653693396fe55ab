/**
 * The API's JSON of the IRC resources, each shaped in this one place: routes, the /events socket
 * and the state events all build a Connection or a Conversation here, so they cannot drift apart.
 */
import type { ConnectionRecord } from "../store/connections.ts";
import { type ConversationRecord, notifyLevel } from "../store/conversations.ts";
import { isChannel } from "../lib/casefold.ts";
import type { IrcConnection } from "./engine/connection.ts";
import type { InfoStateEvent } from "../protocol/events.ts";
import type { ConnectionJson, ConversationCore, ConversationJson } from "../protocol/resources.ts";
import { parseIrcUrl, publicUrl, withNick } from "./url.ts";
import type { LiveView } from "./control.ts";

/** Services Convos assumes on a network without a connection profile. */
export const DEFAULT_SERVICE_ACCOUNTS = ["chanserv", "nickserv"];

/**
 * A Connection's `info`: what the live connection learnt (nick, reason...) plus, as Convos has
 * them, `authenticated` (SASL or services login done) and the enabled IRCv3 `capabilities`.
 * `nick` is known before connecting when the URL names one, as Convos reports it: the URL's nick
 * until the server names the one it got.
 */
export function connectionInfo(
  conn: IrcConnection | undefined,
  record?: ConnectionRecord,
): Record<string, unknown> {
  const out: Record<string, unknown> = { authenticated: false, capabilities: {} };
  // As Convos: the client certificate's fingerprint, for services' SASL EXTERNAL, once one was
  // made (at the first connect).
  const fingerprint = (conn?.record ?? record)?.certFingerprint;
  if (fingerprint) out.certificate = { fingerprint };
  const wanted = conn ? conn.url.nick : record && urlNick(record);
  if (wanted) out.nick = wanted;
  for (const [k, v] of Object.entries(conn?.info ?? {})) {
    if (v !== undefined && k !== "certificate") out[k] = v;
  }
  out.authenticated = conn?.state === "connected" && conn.info.authenticated === true;
  if (conn?.state === "connected") {
    const enabled = [...conn.upstream.caps].slice(0, 100);
    out.capabilities = Object.fromEntries(enabled.map((c) => [c, true]));
  }
  return out;
}

/** The `info` state event of a live connection: its info, flat, as Convos's client reads it. */
export function infoStateEvent(conn: IrcConnection): InfoStateEvent {
  return { ...connectionInfo(conn), event: "state", type: "info", connection_id: conn.id };
}

/** The nick a stored connection's URL names, or "". */
function urlNick(record: ConnectionRecord): string {
  try {
    return parseIrcUrl(record.url).nick;
  } catch {
    return ""; // an unusable stored URL: no nick to show
  }
}

/**
 * The stored URL with the nick the connection uses: the one kept beside it wins (a `/nick`), and a
 * URL stored before the two were kept alike may still name the old one.
 */
function shownUrl(record: ConnectionRecord): string {
  const named = urlNick(record);
  return named && record.nick && named !== record.nick
    ? withNick(record.url, record.nick)
    : record.url;
}

/** The Connection resource of a stored connection with its live state (irc/control.ts). */
export function connectionJson(
  record: ConnectionRecord,
  live: LiveView,
  serviceAccounts: string[] = DEFAULT_SERVICE_ACCOUNTS,
): ConnectionJson {
  return {
    connection_id: record.connectionId,
    name: record.name,
    url: publicUrl(shownUrl(record)),
    info: live.info,
    on_connect_commands: record.onConnectCommands,
    service_accounts: serviceAccounts,
    state: live.state,
    wanted_state: record.wantedState,
  };
}

/** The Conversation resource; without `frozen`, the core that new-conversation events carry. */
export function conversationJson(c: ConversationRecord): ConversationCore;
export function conversationJson(c: ConversationRecord, frozen: string): ConversationJson;
export function conversationJson(
  c: ConversationRecord,
  frozen?: string,
): ConversationCore | ConversationJson {
  const core = {
    connection_id: c.connectionId,
    conversation_id: c.conversationId,
    name: c.name,
    topic: c.topic,
    unread: c.unread,
  };
  if (frozen === undefined) return core;
  return {
    ...core,
    frozen,
    info: {},
    notifications: c.notifications,
    notify: notifyLevel(c.notify, isChannel(c.conversationId)),
    detached: c.detach.detached,
  };
}
