/**
 * Detachment changes across nodes (cluster/detach.ts) on a real PostgreSQL: a change told on one
 * node's bus reaches every other node's taps once, is not sent back, and reaches no socket there;
 * a node that listens again after losing its session is told it may have missed some.
 */
import { assertEquals } from "../../support/assert.ts";
import { poll } from "../../support/poll.ts";
import { endListening, startPostgres } from "../../support/postgres.ts";
import { openPgStore } from "../../../store/pg/mod.ts";
import { PgChannel } from "../../../cluster/channel.ts";
import { shareDetach } from "../../../cluster/detach.ts";
import { EventBus } from "../../../lib/bus.ts";
import type { BusEvent, DetachEvent } from "../../../protocol/events.ts";

const SECRET = "one secret for every node";

function change(channel: string, detached: boolean): DetachEvent {
  return {
    event: "detach",
    connection_id: "irc-localhost",
    channel,
    state: { detached, relayDetached: "", reattachOn: "", detachAfter: 0 },
    toggled: true,
  };
}

Deno.test("detach changes: told on one node, heard once by every node's taps", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const stops: (() => Promise<void>)[] = [];
  const node = async (id: string, secret = SECRET) => {
    const bus = new EventBus();
    const heard: [number, string][] = [];
    bus.tap((user, ev) => {
      if (ev.event === "detach") heard.push([user, `${ev.channel} ${ev.state.detached}`]);
    }, ["detach"]);
    const sockets: BusEvent[] = [];
    bus.subscribe(5, (ev) => void sockets.push(ev));
    stops.push(await shareDetach(new PgChannel(store.sql, secret), id, bus)());
    return { bus, heard, sockets };
  };
  try {
    const a = await node("node-a");
    const b = await node("node-b");
    const stranger = await node("node-x", "another secret");
    a.bus.tell(5, change("#one", true));
    assertEquals(a.heard, [[5, "#one true"]]);
    await poll("node b heard it", () => b.heard.length >= 1);
    b.bus.tell(5, change("#two", false));
    await poll("node a heard b's", () => a.heard.length >= 2);
    // A later change of a's, heard by b: had b sent a's back (or a b's), it would show by now.
    a.bus.tell(5, change("#three", true));
    await poll("node b heard the third", () => b.heard.length >= 3);
    assertEquals(a.heard, [[5, "#one true"], [5, "#two false"], [5, "#three true"]]);
    assertEquals(b.heard, a.heard);
    assertEquals(a.sockets.concat(b.sockets), [], "taps only: no socket is told");
    assertEquals(stranger.heard, [], "a node of another secret reads none");
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await store.close();
    await pg.close();
  }
});

Deno.test("detach changes: listening again after the session was lost, the node reads again", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const bus = new EventBus();
  let missed = 0;
  bus.tap(() => void missed++, ["detach_missed"]);
  const stop = await shareDetach(new PgChannel(store.sql, SECRET), "node-a", bus)();
  try {
    assertEquals(missed, 1, "at the first listen: nothing was heard before it");
    // The session holding the LISTENs ends, as at a restart of PostgreSQL: what another node
    // tells until the client listens again reaches nobody.
    await endListening(pg.url);
    await poll("told again once listening again", () => missed === 2);
  } finally {
    await stop().catch(() => {});
    await store.close();
    await pg.close();
  }
});
