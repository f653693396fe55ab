/**
 * Attached IRC clients hear when their network goes down and when it is back, in the words the
 * web client's server conversation shows ("Connection refused. Reconnecting in about 4s.",
 * "Connected to irc.libera.chat."): a NOTICE from Parley to the client. Without it a client saw
 * nothing of an outage until its channels were joined again.
 */
import { SERVER_NAME } from "./burst.ts";
import type { BouncerContext } from "./session.ts";
import { formatMessage } from "../irc/protocol/message.ts";

/** The longest state text told: a server's reason for closing is one IRC line at most. */
const MAX_TEXT = 400;

/** Tells each client this node serves on a connection of its state changes; returns the stop. */
export function relayConnectionStates(cx: Pick<BouncerContext, "relay" | "logins">): () => void {
  return cx.relay.bus.tap(
    (userId, ev) => {
      if (ev.event !== "state" || ev.type !== "connection" || !ev.message) return;
      // Down and back: the steps between (queued, connecting) would be noise at every retry.
      if (ev.state !== "connected" && ev.state !== "disconnected") return;
      const text = ev.message.replace(/[\r\n\0]+/g, " ").slice(0, MAX_TEXT);
      for (const s of cx.logins.get(userId) ?? []) {
        if (s.hub?.connectionId !== ev.connection_id) continue;
        s.write(
          formatMessage({ command: "NOTICE", params: [s.target, text], prefix: SERVER_NAME }),
        );
      }
    },
    ["state"],
    (userId) => cx.logins.has(userId),
  );
}
