/**
 * People talking: PRIVMSG, NOTICE and ACTION become stored messages, in the channel, in the
 * private conversation with the other person, or in the server's conversation. The lean path
 * (chat/chat_line.ts) brings a burst's chat lines here without irc-framework's parser.
 */
import { log } from "../../../lib/log.ts";
import { nowMicros } from "../../../lib/time.ts";
import type { ChatType } from "../../../store/message_types.ts";
import type { ChatPayload, IrcClient } from "../../engine/framework.ts";
import { parseLeanLine } from "../chat_line.ts";
import { recordMessage } from "../record.ts";
import { isIgnored } from "../ignore.ts";
import { unstored } from "../unstored.ts";
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
      return unstored(conn, { name, from: ev.nick, type, text, ignored: true });
    }
  }
  const tags = ev.tags ?? {};
  const serverMsgid = tagOf(tags.msgid);
  const replyTo = tagOf(tags["+draft/reply"]);
  await recordMessage(cx.deps, conn, {
    name,
    from: ev.nick,
    type,
    text,
    ts: ev.ts,
    own,
    serverMsgid: ev.msgid ?? serverMsgid,
    replyTo,
  });
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

/** A line the lean path took: a chat line, or someone's join. */
type Lean = (Said & { kind: keyof typeof BY_KIND }) | (Timed<"join"> & { kind: "join" });

/** Records a line the lean path took, with the handler irc-framework's event would have had. */
const record = (cx: Inbound, line: Lean) =>
  line.kind === "join" ? join(cx, line) : BY_KIND[line.kind](cx, line);

/**
 * The lean path: a person's chat line to a channel or to the user, or someone else's join of a
 * channel, skips irc-framework, and consecutive ones are recorded in one step of the serial
 * queue. Any other line closes the step, so the order of events is kept.
 */
export function attachLeanPath(cx: Inbound, client: IrcClient, run: Serial): void {
  const { conn } = cx;
  let batch: Lean[] | undefined;
  // What the transport holds its next slice back for (socket/transport.ts, MAX_BACKLOG): the
  // steps queued, and the lean lines they hold.
  const { backlog } = run;
  // A connection still registering is held by its own bound only: its lines store next to
  // nothing, and holding them behind everyone's backlog let registrations time out.
  conn.backlogRoom = (max) => backlog.room(max, conn.state === "connected");
  const timeOf = (time: number | undefined) =>
    time === undefined ? nowMicros() : lineTime(time, serverTimeEnabled(client));
  /** The line as the lean path records it; undefined for one left to irc-framework. */
  const lean = (by: unknown, input: string): Lean | undefined => {
    if (by !== client || !conn.nick) return undefined;
    const line = parseLeanLine(input);
    if (!line) return undefined;
    const ts = timeOf(line.time);
    const { nick, user: ident, host: hostname } = line;
    if (line.kind !== "join") {
      if (!(conn.isChannel(line.target) || conn.isMe(line.target))) return undefined;
      return {
        kind: line.kind,
        nick,
        ident,
        hostname,
        target: line.target,
        message: line.text,
        ts,
        msgid: line.msgid,
      };
    }
    // The user's own join goes to irc-framework, which follows the user's channels.
    if (conn.isMe(nick) || !conn.isChannel(line.channel)) return undefined;
    return { kind: "join", nick, ident, hostname, channel: line.channel, ts };
  };
  conn.lineHook = (by, line) => {
    const ev = lean(by, line);
    if (!ev) {
      batch = undefined;
      return false;
    }
    if (!batch) {
      const lines = batch = [ev];
      run(async () => {
        // Lines pushed while the step runs are still iterated; one failing does not stop the rest.
        for (const line of lines) {
          try {
            await record(cx, line);
          } catch (err) {
            log.error("irc event failed", { label: conn.id, error: err });
          }
          backlog.done();
        }
        if (batch === lines) batch = undefined;
      });
    } else batch.push(ev);
    backlog.add();
    return true;
  };
}
