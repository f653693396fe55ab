/**
 * Detachment changes across nodes (bouncer/detached.ts): a channel detached or reattached on one
 * node (the API, the web client, BouncerServ, an IRC client's PART, a detach-after running out)
 * is told to the bus of every node, so that the relay of the node that runs the connection acts
 * on it: its IRC clients get the PART or the JOIN burst, its detach-after timer the new options.
 * As `bus.tell` there: taps only, no socket. Each time the node listens (at first, and again after
 * its database session was lost, when what was told meanwhile reached nobody) its bus is told
 * `detach_missed`, and the hubs read their channels' detachment from the store again.
 */
import type { EventBus } from "../lib/bus.ts";
import { log } from "../lib/log.ts";
import type { DetachEvent } from "../protocol/events.ts";
import type { PgChannel } from "./channel.ts";

const CHANNEL = "parley_detach";

interface DetachMessage {
  from: string;
  user: number;
  ev: DetachEvent;
}

/**
 * Has `node` send the detachment changes told on `bus` to the other nodes and tell its bus what
 * they send; returns the listen to start with the node (its stop ends the sending too).
 */
export function shareDetach(
  channel: PgChannel,
  node: string,
  bus: EventBus,
): () => Promise<() => Promise<void>> {
  /** Set while a change from another node is told here: it is not sent back. */
  let fromElsewhere = false;
  const untap = bus.tap((user, ev) => {
    if (fromElsewhere || ev.event !== "detach") return;
    channel.send(CHANNEL, { from: node, user, ev } satisfies DetachMessage).catch((err) =>
      log.warn("cluster: a detachment change not shared; the other nodes read it at next attach", {
        uid: user,
        connection: ev.connection_id,
        channel: ev.channel,
        error: String(err),
      })
    );
  }, ["detach"]);
  return async () => {
    const unlisten = await channel.listen(
      CHANNEL,
      (m) => {
        const msg = m as DetachMessage;
        if (msg.from === node) return;
        fromElsewhere = true;
        try {
          bus.tell(msg.user, msg.ev);
        } finally {
          fromElsewhere = false;
        }
      },
      () => bus.tell(0, { event: "detach_missed" }),
    );
    return async () => {
      untap();
      await unlisten();
    };
  };
}
