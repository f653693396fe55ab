/**
 * People talking: PRIVMSG, NOTICE and ACTION become stored messages, in the channel, in the
 * private conversation with the other person, or in the server's conversation. The lean path
 * (chat/chat_line.ts) brings a burst's chat lines here without irc-framework's parser.
 */
import { log } from "../../../lib/log.ts";
import { nowMicros } from "../../../lib/time.ts";
import type { ChatType } from "../../../store/message_types.ts";
import type { ChatPayload, IrcClient } from "../../engine/framework.ts";
import { parseChatLine } from "../chat_line.ts";
import { recordMessage } from "../record.ts";
import { isIgnored } from "../ignore.ts";
import { unstored } from "../unstored.ts";
import { lineTime, serverTimeEnabled } from "../server_time.ts";
import type { Serial } from "./serial.ts";
import type { HandlerTable, Inbound } from "./context.ts";

type Said = ChatPayload & { ts: number };

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
  await recordMessage(cx.deps, conn, { name, from: ev.nick, type, text, ts: ev.ts, own });
};

/** The handler of each kind of chat line. */
const BY_KIND = {
  privmsg: message("private"),
  action: message("action"),
  notice: message("notice"),
};

export const CHAT: HandlerTable = BY_KIND;

/**
 * The lean path: a person's chat line to a channel or to the user skips irc-framework, and
 * consecutive ones are recorded in one step of the serial queue. Any other line closes the step,
 * so the order of events is kept.
 */
export function attachLeanPath(cx: Inbound, client: IrcClient, run: Serial): void {
  const { conn } = cx;
  let batch: (Said & { kind: keyof typeof BY_KIND })[] | undefined;
  // What the transport holds its next slice back for (socket/transport.ts, MAX_BACKLOG): the
  // steps queued, and the lean lines they hold.
  const { backlog } = run;
  // A connection still registering is held by its own bound only: its lines store next to
  // nothing, and holding them behind everyone's backlog let registrations time out.
  conn.backlogRoom = (max) => backlog.room(max, conn.state === "connected");
  conn.lineHook = (from, line) => {
    const chat = from === client && conn.nick ? parseChatLine(line) : undefined;
    if (!chat || !(conn.isChannel(chat.target) || conn.isMe(chat.target))) {
      batch = undefined;
      return false;
    }
    const ts = chat.time === undefined
      ? nowMicros()
      : lineTime(chat.time, serverTimeEnabled(client));
    const ev = {
      kind: chat.kind,
      nick: chat.nick,
      ident: chat.user,
      hostname: chat.host,
      target: chat.target,
      message: chat.text,
      ts,
    };
    if (!batch) {
      const lines = batch = [ev];
      run(async () => {
        // Lines pushed while the step runs are still iterated; one failing does not stop the rest.
        for (const line of lines) {
          try {
            await BY_KIND[line.kind](cx, line);
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
