/**
 * What happens on IRC, as the user sees it: messages are stored, conversations created on join
 * and on the first private message, topics kept, and every event published on the bus. The
 * handlers live by concern (chat, membership, channel, server), each a table keyed by
 * irc-framework's typed events (engine/framework.ts); this module registers them on a client.
 */
import type { InboundLines, IrcConnection } from "../../engine/connection.ts";
import type { LineOut, Outlet } from "../../engine/outlet.ts";
import type { IrcClient, IrcEventName } from "../../engine/framework.ts";
import type { RecordDeps } from "../record.ts";
import { lineTime, serverTimeEnabled } from "../server_time.ts";
import { CHAT, leanPath, tagTime } from "./chat.ts";
import { CHANNEL } from "./channel.ts";
import { type Handler, type HandlerTable, inbound, type Timed } from "./context.ts";
import { MEMBERSHIP } from "./membership.ts";
import { greeting, SERVER, welcomeText } from "./server.ts";
import { TAGS } from "./tags.ts";
import { GAP, watchForGap } from "./gap.ts";
import type { Serial } from "./serial.ts";

export { type Serial, serial } from "./serial.ts";
export { welcomeText } from "./server.ts";

/**
 * Every concern's handlers; an event is handled by at most one of them.
 *
 * @internal test seam
 */
export const HANDLERS: readonly HandlerTable[] = [CHAT, MEMBERSHIP, CHANNEL, SERVER, GAP, TAGS];

/**
 * Attaches the handlers of incoming IRC events to a fresh client of `conn`; what it returns takes
 * the client's lines. Each line then goes to `outlet()` (when there is one) in the serial queue,
 * after its handlers, with what they made of it.
 */
export function attachInbound(
  deps: RecordDeps,
  conn: IrcConnection,
  client: IrcClient,
  run: Serial,
  outlet: () => Outlet | undefined = () => undefined,
): InboundLines {
  const cx = inbound(deps, conn, client);
  /** The line irc-framework is dispatching now: its events' handlers say what they made of it. */
  let current: LineOut | undefined;
  const on = <K extends IrcEventName>(event: K, handler: Handler<K>) => {
    const [wanted, handle] = typeof handler === "function"
      ? [undefined, handler]
      : [handler.wanted, handler.handle];
    client.on(event, (ev) => {
      if (conn.client !== client || (wanted && !wanted(ev))) return;
      const ts = lineTime(
        (ev as { time?: number } | undefined)?.time,
        serverTimeEnabled(conn.upstream),
      );
      const timed = { ...(ev as object), ts } as Timed<K>;
      const out = current;
      run(async () => {
        cx.out = out;
        try {
          await handle(cx, timed);
        } finally {
          cx.out = undefined;
        }
      });
    });
  };
  for (const table of HANDLERS) {
    for (const [event, handler] of Object.entries(table)) {
      on(event as IrcEventName, handler as Handler<IrcEventName>);
    }
  }
  const lean = leanPath(cx, client, run, outlet);
  watchForGap(conn, client);
  // Convos's `info.authenticated`: a SASL or services login on this (fresh) client.
  conn.info.authenticated = false;
  return {
    take(m) {
      if (lean.take(m)) return true;
      // The greeting (001-004): irc-framework has no event for all of it.
      if (m.command.startsWith("00") && welcomeText(m)) {
        const ts = lineTime(tagTime(m.tags.get("time")), serverTimeEnabled(conn.upstream));
        run(() => greeting(cx, m, ts));
      }
      // irc-framework dispatches it next: its handlers fill what it made.
      current = outlet() ? { message: m } : undefined;
      return false;
    },
    handed() {
      const out = current;
      current = undefined;
      if (out) run(() => Promise.resolve(outlet()?.line(conn, out)));
    },
    room: lean.room,
    // `/names` answers from what this client has seen (chat/presence.ts).
    members: (channel) => cx.presence.members(cx.convId(channel)),
    rejoining(channels) {
      for (const name of channels) cx.presence.joined(cx.convId(name));
    },
    released: () => cx.presence.release(),
  };
}
