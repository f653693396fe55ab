/**
 * What happens on IRC, as the user sees it: messages are stored, conversations created on join
 * and on the first private message, topics kept, and every event published on the bus. The
 * handlers live by concern (chat, membership, channel, server), each a table keyed by
 * irc-framework's typed events (engine/framework.ts); this module registers them on a client.
 */
import type { IrcConnection } from "../../engine/connection.ts";
import type { IrcClient, IrcEventName } from "../../engine/framework.ts";
import type { RecordDeps } from "../record.ts";
import { lineTime, serverTimeEnabled } from "../server_time.ts";
import { attachLeanPath, CHAT } from "./chat.ts";
import { CHANNEL } from "./channel.ts";
import { type Handler, type HandlerTable, inbound, type Timed } from "./context.ts";
import { MEMBERSHIP } from "./membership.ts";
import { SERVER } from "./server.ts";
import { TAGS } from "./tags.ts";
import { GAP, watchForGap } from "./gap.ts";
import type { Serial } from "./serial.ts";

export { type Serial, serial } from "./serial.ts";
export { prefixString, welcomeText } from "./server.ts";

/** Every concern's handlers; an event is handled by at most one of them. */
export const HANDLERS: readonly HandlerTable[] = [CHAT, MEMBERSHIP, CHANNEL, SERVER, GAP, TAGS];

/** Attaches the handlers of incoming IRC events to a fresh client of `conn`. */
export function attachInbound(
  deps: RecordDeps,
  conn: IrcConnection,
  client: IrcClient,
  run: Serial,
): void {
  const cx = inbound(deps, conn, client);
  const on = <K extends IrcEventName>(event: K, handler: Handler<K>) => {
    const [wanted, handle] = typeof handler === "function"
      ? [undefined, handler]
      : [handler.wanted, handler.handle];
    client.on(event, (ev) => {
      if (conn.client !== client || (wanted && !wanted(ev))) return;
      const ts = lineTime((ev as { time?: number } | undefined)?.time, serverTimeEnabled(client));
      const timed = { ...(ev as object), ts } as Timed<K>;
      run(async () => await handle(cx, timed));
    });
  };
  for (const table of HANDLERS) {
    for (const [event, handler] of Object.entries(table)) {
      on(event as IrcEventName, handler as Handler<IrcEventName>);
    }
  }
  attachLeanPath(cx, client, run);
  // `/names` answers from what this client has seen (chat/presence.ts).
  conn.members = (channel) => cx.presence.members(cx.convId(channel));
  conn.rejoining = (channels) => {
    for (const name of channels) cx.presence.joined(cx.convId(name));
  };
  conn.released = () => cx.presence.release();
  watchForGap(conn, client);
  // Convos's `info.authenticated`: a SASL or services login on this (fresh) client.
  conn.info.authenticated = false;
}
