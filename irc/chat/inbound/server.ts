/**
 * The server speaking: its greeting (001-004) and MOTD in the server conversation, its refusals
 * (answers.ts's ERRORS, and standard replies: FAIL, WARN, NOTE) there and on the bus, the PREFIX
 * it ranks members by, and the account login.
 */
import { infoStateEvent } from "../../resources.ts";
import type { Handler, HandlerTable, Inbound } from "./context.ts";
import type { IrcMessage as Message } from "../../protocol/message.ts";
import {
  ERR_MONLISTFULL,
  ERR_NOMOTD,
  RPL_CREATED,
  RPL_CREATIONTIME,
  RPL_ENDOFMONLIST,
  RPL_ENDOFMOTD,
  RPL_ISUPPORT,
  RPL_LISTSTART,
  RPL_LOGGEDIN,
  RPL_LOGGEDOUT,
  RPL_MONLIST,
  RPL_MONOFFLINE,
  RPL_MONONLINE,
  RPL_MOTD,
  RPL_MYINFO,
  RPL_WELCOME,
  RPL_YOURHOST,
} from "../../protocol/numerics.ts";
import { ERRORS, ircError, last } from "./answers.ts";

/** The numerics of the server's greeting. */
const GREETING = new Set([RPL_WELCOME, RPL_YOURHOST, RPL_CREATED, RPL_MYINFO]);

/** The text of a 001-004 line (its parameters after the nick), or undefined for any other line. */
function welcomeText(m: Message): { numeric: string; text: string } | undefined {
  if (!GREETING.has(m.command)) return undefined;
  const text = m.params.slice(1).join(" ").slice(0, 1024).replace(/[\r\n\0]/g, "").trim();
  return { numeric: m.command, text };
}

/**
 * The server's greeting (001-004), shown as Convos shows it, after "Connected to": the 001 is
 * stored by the manager, after the "connected" state it announces on `registered`.
 */
async function greeting(cx: Inbound, m: Message, ts: number): Promise<void> {
  const greeting = welcomeText(m);
  if (!greeting) return;
  if (greeting.numeric === RPL_WELCOME) {
    cx.conn.welcome = { text: greeting.text, ts };
    return;
  }
  if (greeting.text) await cx.server(greeting.text, ts);
}

/**
 * The connection's parsed PREFIX back in ISUPPORT's form, "(ov)@+"; undefined when unusable.
 *
 * @internal test seam
 */
export function prefixString(prefix: unknown): string | undefined {
  if (!Array.isArray(prefix) || prefix.length > 16) return undefined;
  let modes = "";
  let signs = "";
  for (const p of prefix) {
    const { mode, symbol } = p as { mode?: unknown; symbol?: unknown };
    if (typeof mode !== "string" || typeof symbol !== "string") return undefined;
    if (!/^[A-Za-z]$/.test(mode) || !/^[^\sA-Za-z0-9,]$/.test(symbol)) return undefined;
    modes += mode;
    signs += symbol;
  }
  return `(${modes})${signs}`;
}

/**
 * A refusal: `text` in the server conversation, and an `error` event for the conversation it
 * concerns ("" for where the user is).
 */
async function refusal(
  cx: Inbound,
  text: string,
  ts: number,
  ev: { conversation_id: string; message: string; error: string },
): Promise<void> {
  await cx.answer(async () => {
    await cx.server(text, ts);
    cx.publish({ type: "error", ...ev });
  });
}

/**
 * A numeric refusal (answers.ts's ERRORS), in the server conversation as the server said it: what
 * it concerns, then its words (`#chan: You're not channel operator`, `FOO: Unknown command`).
 */
const refused: Handler = (cx, m, ts) => {
  const ev = ircError(m)!;
  const said = afterNick(cx, m);
  const text = oneLine([said.slice(0, -1).join(" "), said.at(-1)].filter(Boolean).join(": "), 1024);
  return refusal(cx, text, ts, {
    conversation_id: ev.channel ? cx.convId(ev.channel) : ev.nick ? cx.convId(ev.nick) : "",
    message: String(ev.reason ?? ev.error),
    error: ev.error ?? "",
  });
};

/** A numeric's parameters after the user's nick (or `*`, before registration), which it names first. */
function afterNick(cx: Inbound, m: Message): string[] {
  return cx.conn.isMe(m.params[0]) || m.params[0] === "*" ? m.params.slice(1) : m.params;
}

/** A server's words as one line of at most `max` characters: control characters as spaces. */
function oneLine(text: string, max: number): string {
  // deno-lint-ignore no-control-regex -- control characters are what it replaces
  return text.replace(/[\x00-\x1f]/g, " ").trim().slice(0, max);
}

/**
 * Numerics nothing handles that answer Parley's own queries (a channel's creation time after its
 * modes, the header of /list's table) or the listener's clients (MONITOR): never shown.
 */
const QUIET = new Set([
  RPL_CREATIONTIME,
  RPL_LISTSTART,
  RPL_MONONLINE,
  RPL_MONOFFLINE,
  RPL_MONLIST,
  RPL_ENDOFMONLIST,
  ERR_MONLISTFULL,
]);

/**
 * Whether a numeric no handler takes is shown (`unhandled`): one the server sends once the
 * connection is registered, not a quiet one (and, as every answer, not one that answered an
 * attached IRC client's command: `Inbound.answer`).
 */
export function showsUnhandled(cx: Inbound, m: Message): boolean {
  return /^\d{3}$/.test(m.command) && !QUIET.has(m.command) && cx.conn.state === "connected";
}

/**
 * A numeric nothing else takes (the answer to a `/quote`, the server's user counts at connect),
 * in the server conversation as Convos shows it: its parameters after the user's nick, an error
 * from 400 to 599.
 */
export const unhandled: Handler = (cx, m, ts) => {
  const params = afterNick(cx, m);
  const text = oneLine(params.join(" "), 1024);
  if (!text) return;
  const code = Number(m.command);
  return cx.answer(() => cx.server(text, ts, code >= 400 && code < 600 ? "error" : "notice"));
};

/** Most characters of a standard reply's description kept. */
const MAX_DESCRIPTION = 512;

/**
 * A standard reply (`FAIL NICK NICKNAME_RESERVED bob :Nickname is reserved`): "NICK: Nickname is
 * reserved" in the server conversation, as a numeric refusal is; a FAIL also on the bus, in the
 * channel its context names or where the user is. The answers to Parley's own CHATHISTORY are
 * its own (backfill.ts): nobody asked them.
 */
const standardReply: Handler = (cx, m, ts) => {
  const [command = "*", code = ""] = m.params;
  if (command === "CHATHISTORY" || m.params.length < 3) return;
  const description = oneLine(last(m), MAX_DESCRIPTION) || code;
  const text = command === "*" ? description : `${command}: ${description}`;
  if (m.command !== "FAIL") return cx.answer(() => cx.server(text, ts));
  const channel = m.params.slice(2, -1).find((p) => cx.conn.isChannel(p));
  return refusal(cx, text, ts, {
    conversation_id: channel ? cx.convId(channel) : "",
    message: description,
    error: code.toLowerCase().slice(0, 64),
  });
};

export const SERVER: HandlerTable = {
  FAIL: standardReply,
  WARN: standardReply,
  NOTE: standardReply,
  [RPL_WELCOME]: greeting,
  [RPL_YOURHOST]: greeting,
  [RPL_CREATED]: greeting,
  [RPL_MYINFO]: greeting,
  // The server's PREFIX (ISUPPORT 005, after the welcome): the modes that rank channel members
  // and their signs, as "(qaohv)~&@%+". The web client ranks its member lists by it.
  // The connection's state has read the line before any handler runs.
  [RPL_ISUPPORT]: ({ deps, conn }) => {
    const prefix = prefixString(conn.upstream.prefix);
    if (prefix === undefined || prefix === conn.info.prefix) return;
    conn.info.prefix = prefix;
    deps.bus.publish(conn.userId, infoStateEvent(conn));
  },
  // Convos's `info.authenticated`: a SASL or services login on this client.
  [RPL_LOGGEDIN]: ({ conn }) => void (conn.info.authenticated = true),
  [RPL_LOGGEDOUT]: ({ conn }) => void (conn.info.authenticated = false),
  [RPL_ENDOFMOTD]: (cx, _m, ts, got) => {
    const lines = (got?.lines ?? []).filter((l) => l.command === RPL_MOTD);
    return cx.server(lines.map(last).join("\n").trimEnd(), ts);
  },
  [ERR_NOMOTD]: (cx, m, ts) => cx.server(last(m).trimEnd(), ts),
  ...Object.fromEntries(Object.keys(ERRORS).map((command) => [command, refused])),
};
