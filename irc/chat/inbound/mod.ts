/**
 * What happens on IRC, as the user sees it: messages are stored, conversations created on join
 * and on the first private message, topics kept, and every event published on the bus. The
 * handlers live by concern (chat, membership, channel, server, gap, tags), each a table keyed by
 * IRC command or numeric and given the transport's parsed line; this module puts them in one
 * table and takes a client's lines: the lean path first, then each line's handler, in order.
 */
import type { InboundLines, IrcConnection } from "../../engine/connection.ts";
import type { LineOut, Outlet } from "../../engine/outlet.ts";
import type { IrcClient } from "../../engine/client.ts";
import { REGISTRATION_COMMANDS } from "../../engine/registration.ts";
import type { IrcMessage as Message } from "../../protocol/message.ts";
import { log } from "../../../lib/log.ts";
import type { RecordDeps } from "../record.ts";
import { lineTime, serverTimeEnabled } from "../server_time.ts";
import { answersOf, type AnswerState } from "./answers.ts";
import { CHAT, leanPath, tagTime } from "./chat.ts";
import { CHANNEL } from "./channel.ts";
import { type Handler, type HandlerTable, inbound } from "./context.ts";
import { MEMBERSHIP, prefixOf } from "./membership.ts";
import { Replies } from "./replies.ts";
import { SERVER, showsUnhandled, unhandled } from "./server.ts";
import { TAGS } from "./tags.ts";
import { GAP, watchForGap } from "./gap.ts";
import { BACKFILL, historyOf } from "./backfill.ts";
import { keepPastEvent } from "./backfill_events.ts";
import { RPL_WELCOME } from "../../protocol/numerics.ts";
import type { Serial } from "./serial.ts";

export { type Serial, serial } from "./serial.ts";

/**
 * Every concern's handlers.
 *
 * @internal test seam
 */
export const HANDLERS: readonly HandlerTable[] = [
  CHAT,
  MEMBERSHIP,
  CHANNEL,
  SERVER,
  GAP,
  TAGS,
  // After MEMBERSHIP: a channel's names have been taken when its history is asked.
  BACKFILL,
];

/**
 * The one table: each command's handler. A command two concerns handle (001: the greeting, then
 * the gap marker) runs theirs in HANDLERS' order.
 *
 * @internal test seam
 */
export const COMMANDS: ReadonlyMap<string, Handler> = (() => {
  const table = new Map<string, Handler>();
  for (const concern of HANDLERS) {
    for (const [command, handler] of Object.entries(concern)) {
      const before = table.get(command);
      table.set(
        command,
        before
          ? async (cx, m, ts, got) => {
            await before(cx, m, ts, got);
            await handler(cx, m, ts, got);
          }
          : handler,
      );
    }
  }
  return table;
})();

/**
 * A line of a batch that is not a message: when the batch is history Parley asked for (known only
 * once the batch's start has been handled, so decided in turn), the line is not news: a channel
 * event is kept in its place (backfill_events.ts), and no IRC client is sent it. Else `live`.
 */
function pastOrLive(live: Handler | undefined): Handler {
  return async (cx, m, ts, got) => {
    const batch = historyOf(cx, m);
    if (!batch) return await live?.(cx, m, ts, got);
    if (cx.out) cx.out.produced = { kind: "history" };
    await keepPastEvent(cx, m, ts, batch);
  };
}

/**
 * Attaches the handlers of incoming lines to a fresh client of `conn`; what it returns takes the
 * client's lines. Each line's handler runs in the serial queue, then the line goes to `outlet()`
 * (when there is one) with what the handler made of it. The client's registration is given the
 * lines of REGISTRATION_COMMANDS too (engine/registration.ts).
 */
export function attachInbound(
  deps: RecordDeps,
  conn: IrcConnection,
  client: IrcClient,
  run: Serial,
  outlet: () => Outlet | undefined = () => undefined,
): InboundLines {
  const cx = inbound(deps, conn, client);
  const replies = new Replies();
  const answers: AnswerState = { list: [] };
  const prefix = () => prefixOf(cx);
  const lean = leanPath(cx, client, run, outlet);
  watchForGap(conn, client);
  // Convos's `info.authenticated`: a SASL or services login on this (fresh) client.
  conn.info.authenticated = false;
  const timeOf = (m: Message) =>
    lineTime(tagTime(m.tags.get("time")), serverTimeEnabled(conn.upstream));
  /** The server's welcome came (and came again): registration is done once per client. */
  let welcomed: boolean | "again" = false;
  return {
    take(m) {
      if (lean.take(m)) return true;
      if (conn.client !== client) return false;
      if (m.command === RPL_WELCOME) {
        // A second welcome would start everything registration starts again (the rejoins, the
        // on-connect commands, a gap in every conversation, a timer): a server that repeats it,
        // by fault or on purpose, is not followed. Taken here, so nothing else sees it.
        if (welcomed === "again") return true;
        if (welcomed) {
          log.warn("irc server welcomed the connection again; ignored", { connection: conn.id });
          welcomed = "again"; // said once
          return true;
        }
        welcomed = true;
      }
      const registration = REGISTRATION_COMMANDS.has(m.command);
      const gathered = replies.gather(m);
      const got = gathered ? undefined : replies.end(m);
      // Answers are told now, in the server's order (answers.ts); registration tells its own.
      let answered = false;
      if (!gathered && !registration) {
        for (const [event, ev] of answersOf(m, got, answers, prefix)) {
          client.emit(event, ev);
          answered = true;
        }
      }
      // Parley's own try to regain the wanted nick, refused while someone holds it: tried again
      // in a minute, and said to no one each time (not in history, nor to an IRC client).
      const own = conn.refusesRegain(m);
      const live = gathered || own ? undefined : COMMANDS.get(m.command) ??
        // A numeric nothing takes: shown, as Convos shows it (server.ts).
        (!answered && !registration && got === undefined && showsUnhandled(cx, m)
          ? unhandled
          : undefined);
      const batched = m.tags.has("batch") && m.command !== "PRIVMSG" && m.command !== "NOTICE";
      const handler = batched ? pastOrLive(live) : live;
      const out: LineOut | undefined = outlet()
        ? { message: m, ...(own ? { produced: { kind: "own" } as const } : {}) }
        : undefined;
      if (!handler && !out) return !registration;
      const ts = timeOf(m);
      run(async () => {
        cx.out = out;
        cx.source = m.prefix;
        try {
          await handler?.(cx, m, ts, got);
        } catch (err) {
          log.error("irc event failed", { label: conn.id, command: m.command, error: err });
        } finally {
          cx.out = undefined;
          cx.source = undefined;
        }
        // An answer held for the outlet (Inbound.answer) is shown in this queue, in turn.
        const show = out?.show;
        if (show) out.show = () => run(async () => await show());
        if (out) outlet()?.line(conn, out);
      });
      return !registration;
    },
    room: lean.room,
    // `/names` answers from what this client has seen (chat/presence.ts).
    members: (channel) => cx.presence.members(cx.convId(channel)),
    sees: (nick) => cx.presence.sees(cx.convId(nick)),
    rejoining(channels) {
      for (const name of channels) {
        cx.presence.joined(cx.convId(name));
        cx.rejoins.add(cx.convId(name));
      }
    },
    released: () => cx.presence.release(),
  };
}
