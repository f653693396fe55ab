/**
 * People talking: PRIVMSG, NOTICE and ACTION become stored messages, in the channel, in the
 * private conversation with the other person, or in the server's conversation. The lean path
 * brings a burst's chat lines here from the transport's parsed message, several to a step of the
 * serial queue; the rest come through the PRIVMSG and NOTICE handlers, one line a step.
 */
import { msgidOf } from "../../../lib/msgid.ts";
import { log } from "../../../lib/log.ts";
import { nowMicros } from "../../../lib/time.ts";
import type { ChatType } from "../../../protocol/events.ts";
import type { IrcClient } from "../../engine/client.ts";
import type { LineOut, Outlet } from "../../engine/outlet.ts";
import type { LineSink } from "../../socket/transport.ts";
import { type IrcMessage as Message, sourceOf } from "../../protocol/message.ts";
import { actionText, isWholeCtcp } from "../../protocol/ctcp.ts";
import { recordMessage, userHost } from "../record.ts";
import { isIgnored } from "../ignore.ts";
import { lineTime, serverTimeEnabled } from "../server_time.ts";
import type { Serial } from "./serial.ts";
import type { HandlerTable, Inbound } from "./context.ts";
import { join, prefixOf } from "./membership.ts";
import { historyOf, keeps } from "./backfill.ts";

/** A chat line as it is recorded: who said what to whom, when. */
interface Said {
  type: ChatType;
  /** Empty for the server's own. */
  nick: string;
  user: string;
  host: string;
  target: string;
  text: string;
  ts: number;
  tags: ReadonlyMap<string, string>;
  /** A line of the server's history Parley asked for after a gap (backfill.ts). */
  history?: boolean;
}

/** Records a PRIVMSG, NOTICE or ACTION in its conversation (or the server's). */
async function said(cx: Inbound, ev: Said): Promise<void> {
  const { conn } = cx;
  const { type, nick, target, text } = ev;
  if (!nick || target === "*" || (!conn.nick && type === "notice")) {
    // The server's words may answer an IRC client's command (ngircd's HELP), then theirs alone.
    if (ev.history) await cx.server(text, ev.ts);
    else await cx.answer(() => cx.server(text, ev.ts));
    return;
  }
  const own = conn.isMe(nick);
  const who = { nick, user: ev.user || undefined, host: ev.host || undefined };
  // A channel message belongs to the channel; a private one to the other person's nick.
  const name = conn.isChannel(target) ? target : own ? target : nick;
  if (!own) {
    const ignored = isIgnored(cx.deps.store, conn.userId, who);
    if (ignored === true || (ignored !== false && await ignored)) {
      if (cx.out) cx.out.produced = { kind: "ignored" };
      return;
    }
  }
  const out = cx.out;
  const stored = await recordMessage(cx.deps, conn, {
    name,
    from: nick,
    type,
    text,
    ts: ev.ts,
    own,
    serverMsgid: tagOf(ev.tags.get("msgid")),
    replyTo: tagOf(ev.tags.get("+draft/reply")),
    senderHost: userHost(ev.user, ev.host),
    history: ev.history,
  });
  if (out && !ev.history) {
    out.produced = stored
      ? { kind: "stored", msgid: msgidOf(stored.conversation, stored.ts), ts: stored.ts }
      : { kind: "unstored" };
  }
}

/**
 * A PRIVMSG or NOTICE: said now, or a line of the history asked after a gap (backfill.ts), kept
 * when it lies in the gap and did not come live already.
 */
async function chat(cx: Inbound, m: Message, ts: number): Promise<void> {
  const batch = historyOf(cx, m);
  if (batch && cx.out) cx.out.produced = { kind: "history" };
  const line = chatLine(cx, m, ts);
  if (!line) return;
  if (!batch) return await said(cx, line);
  if (keeps(cx, batch, line.ts, tagOf(m.tags.get("msgid")))) {
    await said(cx, { ...line, history: true });
  }
}

/** A tag's value as kept: a bounded string, or undefined for none (or an empty one). */
export const tagOf = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v.slice(0, 200) : undefined;

/**
 * A message's target without a STATUSMSG prefix (`@#chan`: to the channel's operators): it is
 * kept in the channel's conversation. The prefixes are ISUPPORT's STATUSMSG, else PREFIX's signs.
 */
function targetOf(cx: Inbound, target: string): string {
  if (target.length < 2 || cx.conn.isChannel(target)) return target;
  const status = cx.conn.upstream.isupportValue("STATUSMSG");
  const signs = typeof status === "string" ? status : prefixOf(cx).map((p) => p.symbol).join("");
  return signs.includes(target[0]) && cx.conn.isChannel(target.slice(1)) ? target.slice(1) : target;
}

/** A PRIVMSG or NOTICE line as said: undefined for a CTCP other than a PRIVMSG's ACTION. */
function chatLine(cx: Inbound, m: Message, ts: number): Said | undefined {
  const { nick, user, host } = sourceOf(m.prefix);
  const target = targetOf(cx, m.params[0] ?? "");
  let text = m.params[m.params.length - 1] ?? "";
  let type: ChatType = m.command === "NOTICE" ? "notice" : "private";
  if (isWholeCtcp(text)) {
    // CTCP requests are answered by the engine (engine/connection.ts), replies are not kept.
    const words = m.command === "PRIVMSG" ? actionText(text) : undefined;
    if (words === undefined) return undefined;
    [text, type] = [words, "action"];
  }
  return { type, nick, user, host, target, text, ts, tags: m.tags };
}

export const CHAT: HandlerTable = { PRIVMSG: chat, NOTICE: chat };

/** A line the lean path took: a chat line, or someone's join; `out` when an outlet takes it. */
type Lean =
  & (Said | { type: "join"; nick: string; source: string; channel: string; ts: number })
  & { out?: LineOut };

/** Records a line the lean path took, with the handler its command has. */
const record = (cx: Inbound, line: Lean) =>
  line.type === "join" ? join(cx, line.channel, line.nick, line.ts) : said(cx, line);

/** The `time` tag's value in ms: ISO 8601, or older ZNC's Unix seconds. */
export function tagTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (ms) return ms;
  return /^[0-9.]+$/.test(value) ? parseInt(value, 10) * 1000 : undefined;
}

/**
 * What the lean path takes of a line: a person's PRIVMSG, NOTICE or ACTION to one target, or a
 * person's JOIN of one channel; undefined for anything unusual (a server's source, a CTCP other
 * than ACTION, a batch's line, a client tag), which its command's handler takes.
 */
function leanLine(m: Message):
  | { kind: Lean["type"]; nick: string; user: string; host: string; target: string; text: string }
  | undefined {
  const { command, prefix, params } = m;
  const chat = command === "PRIVMSG" || command === "NOTICE";
  if (!chat && command !== "JOIN") return undefined;
  const bang = prefix.indexOf("!");
  if (bang < 1) return undefined;
  // A batch's lines, and lines with client tags (a reply, a reaction), go to their command's
  // handler, which reads every tag.
  for (const key of m.tags.keys()) if (key === "batch" || key[0] === "+") return undefined;
  const at = prefix.indexOf("@", bang);
  const nick = prefix.slice(0, bang);
  const user = at < 0 ? prefix.slice(bang + 1) : prefix.slice(bang + 1, at);
  const host = at < 0 ? "" : prefix.slice(at + 1);
  const target = params[0];
  if (!target) return undefined;
  if (!chat) {
    // A list of channels (`JOIN #a,#b`): the JOIN handler's.
    if (target.includes(",")) return undefined;
    return { kind: "join", nick, user, host, target, text: "" };
  }
  if (params.length !== 2) return undefined;
  const text = params[1];
  if (text.charCodeAt(0) !== 1) {
    return { kind: command === "NOTICE" ? "notice" : "private", nick, user, host, target, text };
  }
  // CTCP: only a PRIVMSG's ACTION is a chat line; requests and replies go to their handler.
  const words = command === "PRIVMSG" && isWholeCtcp(text) ? actionText(text) : undefined;
  return words === undefined
    ? undefined
    : { kind: "action", nick, user, host, target, text: words };
}

/**
 * The lean path: a person's chat line to a channel or to the user, or someone else's join of a
 * channel, skips the command table, and consecutive ones are recorded in one step of the serial
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
  /** The line as the lean path records it; undefined for one left to its command's handler. */
  const lean = (m: Message): Lean | undefined => {
    if (conn.client !== client || !conn.nick) return undefined;
    const line = leanLine(m);
    if (!line) return undefined;
    const ts = timeOf(tagTime(m.tags.get("time")));
    const { nick, user, host, target } = line;
    const out = outlet() ? { message: m } : undefined;
    if (line.kind !== "join") {
      if (!(conn.isChannel(target) || conn.isMe(target))) return undefined;
      return { type: line.kind, nick, user, host, target, text: line.text, ts, tags: m.tags, out };
    }
    // The user's own join goes to the JOIN handler, which starts the channel's list afresh.
    if (conn.isMe(nick) || !conn.isChannel(target)) return undefined;
    return { type: "join", nick, source: m.prefix, channel: target, ts, out };
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
          // A chat line's row takes its sender's host itself (said); a join's is kept by `keep`.
          if (line.type === "join") cx.source = line.source;
          try {
            await record(cx, line);
          } catch (err) {
            log.error("irc event failed", { label: conn.id, error: err });
          }
          cx.out = undefined;
          cx.source = undefined;
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
