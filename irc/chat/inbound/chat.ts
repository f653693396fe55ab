/**
 * People talking: PRIVMSG, NOTICE and ACTION become stored messages, in the channel, in the
 * private conversation with the other person, or in the server's conversation. The lean path
 * brings a burst's chat lines here from the transport's parsed message, without irc-framework.
 */
import { log } from "../../../lib/log.ts";
import { nowMicros } from "../../../lib/time.ts";
import type { ChatType } from "../../../protocol/events.ts";
import type { ChatPayload, IrcClient } from "../../engine/framework.ts";
import type { LineOut, Outlet } from "../../engine/outlet.ts";
import type { LineSink } from "../../socket/transport.ts";
import type { IrcMessage as Message } from "../../protocol/message.ts";
import { actionText, isWholeCtcp } from "../../protocol/ctcp.ts";
import { recordMessage } from "../record.ts";
import { isIgnored } from "../ignore.ts";
import { lineTime, serverTimeEnabled } from "../server_time.ts";
import type { Serial } from "./serial.ts";
import type { HandlerTable, Inbound, Timed } from "./context.ts";
import { join } from "./membership.ts";

type Said = ChatPayload & { ts: number; msgid?: string };

const message = (type: ChatType) => async (cx: Inbound, ev: Said) => {
  const { conn } = cx;
  const target = String(ev.target ?? "");
  const text = String(ev.message ?? "");
  if (ev.from_server || !ev.nick || target === "*" || (!conn.nick && type === "notice")) {
    await cx.server(text, ev.ts);
    return;
  }
  const own = conn.isMe(ev.nick);
  const who = { nick: ev.nick, user: ev.ident || undefined, host: ev.hostname || undefined };
  // A channel message belongs to the channel; a private one to the other person's nick.
  const name = conn.isChannel(target) ? target : own ? target : ev.nick;
  if (!own) {
    const ignored = isIgnored(cx.deps.store, conn.userId, who);
    if (ignored === true || (ignored !== false && await ignored)) {
      if (cx.out) cx.out.produced = { kind: "ignored" };
      return;
    }
  }
  const tags = ev.tags ?? {};
  const serverMsgid = tagOf(tags.msgid);
  const replyTo = tagOf(tags["+draft/reply"]);
  const out = cx.out;
  const stored = await recordMessage(cx.deps, conn, {
    name,
    from: ev.nick,
    type,
    text,
    ts: ev.ts,
    own,
    serverMsgid: ev.msgid ?? serverMsgid,
    replyTo,
  });
  if (out) out.produced = stored ? { kind: "stored", ...stored } : { kind: "unstored" };
};

/** A tag's value as kept: a bounded string, or undefined for none (or an empty one). */
export const tagOf = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v.slice(0, 200) : undefined;

/** The handler of each kind of chat line. */
const BY_KIND = {
  privmsg: message("private"),
  action: message("action"),
  notice: message("notice"),
};

export const CHAT: HandlerTable = BY_KIND;

/** A line the lean path took: a chat line, or someone's join; `out` when an outlet takes it. */
type Lean =
  & ((Said & { kind: keyof typeof BY_KIND }) | (Timed<"join"> & { kind: "join" }))
  & { out?: LineOut };

/** Records a line the lean path took, with the handler irc-framework's event would have had. */
const record = (cx: Inbound, line: Lean) =>
  line.kind === "join" ? join(cx, line) : BY_KIND[line.kind](cx, line);

/** The `time` tag's value in ms: ISO 8601, or ZNC's Unix seconds (irc-framework's rules). */
export function tagTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (ms) return ms;
  return /^[0-9.]+$/.test(value) ? parseInt(value, 10) * 1000 : undefined;
}

/**
 * What the lean path takes of a line: a person's PRIVMSG, NOTICE or ACTION to one target, or a
 * person's JOIN of one channel; undefined for anything unusual (a server's source, a CTCP other
 * than ACTION, a batch's line, a client tag), which irc-framework handles.
 */
function leanLine(m: Message):
  | { kind: Lean["kind"]; nick: string; user: string; host: string; target: string; text: string }
  | undefined {
  const { command, prefix, params } = m;
  const chat = command === "PRIVMSG" || command === "NOTICE";
  if (!chat && command !== "JOIN") return undefined;
  const bang = prefix.indexOf("!");
  if (bang < 1) return undefined;
  // irc-framework gathers a batch's lines and hands them over when it ends; a reply (and any
  // other client tag) is irc-framework's, which reads every tag.
  for (const key of m.tags.keys()) if (key === "batch" || key[0] === "+") return undefined;
  const at = prefix.indexOf("@", bang);
  const nick = prefix.slice(0, bang);
  const user = at < 0 ? prefix.slice(bang + 1) : prefix.slice(bang + 1, at);
  const host = at < 0 ? "" : prefix.slice(at + 1);
  const target = params[0];
  if (!target) return undefined;
  if (!chat) {
    // A list of channels (`JOIN #a,#b`): irc-framework's.
    if (target.includes(",")) return undefined;
    return { kind: "join", nick, user, host, target, text: "" };
  }
  if (params.length !== 2) return undefined;
  const text = params[1];
  if (text.charCodeAt(0) !== 1) {
    return { kind: command === "NOTICE" ? "notice" : "privmsg", nick, user, host, target, text };
  }
  // CTCP: only a PRIVMSG's ACTION is a chat line; requests and replies go to irc-framework.
  const words = command === "PRIVMSG" && isWholeCtcp(text) ? actionText(text) : undefined;
  return words === undefined
    ? undefined
    : { kind: "action", nick, user, host, target, text: words };
}

/**
 * The lean path: a person's chat line to a channel or to the user, or someone else's join of a
 * channel, skips irc-framework, and consecutive ones are recorded in one step of the serial
 * queue. Any other line closes the step, so the order of events is kept. Each line taken goes to
 * the outlet (when there is one) once recorded.
 */
export function leanPath(
  cx: Inbound,
  client: IrcClient,
  run: Serial,
  outlet: () => Outlet | undefined,
): Pick<LineSink, "take" | "room"> {
  const { conn } = cx;
  let batch: Lean[] | undefined;
  // What the transport holds its next slice back for (socket/transport.ts, MAX_BACKLOG): the
  // steps queued, and the lean lines they hold.
  const { backlog } = run;
  const timeOf = (time: number | undefined) =>
    time === undefined ? nowMicros() : lineTime(time, serverTimeEnabled(conn.upstream));
  /** The line as the lean path records it; undefined for one left to irc-framework. */
  const lean = (m: Message): Lean | undefined => {
    if (conn.client !== client || !conn.nick) return undefined;
    const line = leanLine(m);
    if (!line) return undefined;
    const ts = timeOf(tagTime(m.tags.get("time")));
    const { nick, user: ident, host: hostname, target } = line;
    const out = outlet() ? { message: m } : undefined;
    if (line.kind !== "join") {
      if (!(conn.isChannel(target) || conn.isMe(target))) return undefined;
      const msgid = m.tags.get("msgid");
      return { kind: line.kind, nick, ident, hostname, target, message: line.text, ts, msgid, out };
    }
    // The user's own join goes to irc-framework, which follows the user's channels.
    if (conn.isMe(nick) || !conn.isChannel(target)) return undefined;
    return { kind: "join", nick, ident, hostname, channel: target, ts, out };
  };
  const take = (m: Message) => {
    const ev = lean(m);
    if (!ev) {
      batch = undefined;
      return false;
    }
    if (!batch) {
      const lines = batch = [ev];
      run(async () => {
        // Lines pushed while the step runs are still iterated; one failing does not stop the rest.
        for (const line of lines) {
          cx.out = line.out;
          try {
            await record(cx, line);
          } catch (err) {
            log.error("irc event failed", { label: conn.id, error: err });
          }
          cx.out = undefined;
          try {
            if (line.out) outlet()?.line(conn, line.out);
          } catch (err) {
            log.error("irc line not passed on", { label: conn.id, error: err });
          }
          backlog.done();
        }
        if (batch === lines) batch = undefined;
      });
    } else batch.push(ev);
    backlog.add();
    return true;
  };
  // A connection still registering is held by its own bound only: its lines store next to
  // nothing, and holding them behind everyone's backlog let registrations time out.
  const room = (max: number) => backlog.room(max, conn.state === "connected");
  return { take, room };
}
