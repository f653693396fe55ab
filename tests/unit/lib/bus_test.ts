/**
 * A bus tap may want only some users' events (the bouncer wants those of users with IRC clients
 * attached): others' events skip it, and a publisher learns nobody wants them.
 */
import { assertEquals } from "../../support/assert.ts";
import { EventBus } from "../../../lib/bus.ts";

Deno.test("bus: a tap for some users only", () => {
  const bus = new EventBus();
  const wanted = new Set([1]);
  const seen: number[] = [];
  const untap = bus.tap((uid) => seen.push(uid), ["message"], (uid) => wanted.has(uid));
  assertEquals(bus.wouldReceive(1, "message"), true);
  assertEquals(bus.wouldReceive(2, "message"), false, "nobody wants user 2's messages");
  assertEquals(bus.wouldReceive(1, "unread"), false, "nor another kind");
  const ev = {
    event: "message" as const,
    connection_id: "c",
    conversation_id: "#a",
    from: "x",
    message: "hi",
    ts: "2026-01-01T00:00:00.000000Z",
    type: "private" as const,
    highlight: false,
    msgid: "1.1",
  };
  bus.publish(1, ev);
  bus.publish(2, ev);
  wanted.add(2);
  bus.publish(2, ev);
  assertEquals(seen, [1, 2]);
  untap();
  assertEquals(bus.wouldReceive(1, "message"), false);
});

Deno.test("bus: the login sessions with sockets open, here and on other nodes", () => {
  const bus = new EventBus();
  const told: string[] = [];
  bus.setRelay({
    localCount: (uid, count, sessions) => told.push(`${uid}:${count}:${sessions.join(",")}`),
    relay: () => {},
  });
  const open = () => [...bus.openSessions(1)].sort().join(",");
  const a1 = bus.subscribe(1, () => {}, "a");
  const a2 = bus.subscribe(1, () => {}, "a");
  const b = bus.subscribe(1, () => {}, "b");
  const anonymous = bus.subscribe(1, () => {});
  assertEquals([open(), bus.listenerCount(1)], ["a,b", 4]);
  a1();
  assertEquals(open(), "a,b", "a's second tab is still open");
  a2();
  b();
  assertEquals(open(), "");
  bus.setRemoteCount(1, 2, ["c"]);
  assertEquals([open(), bus.listenerCount(1)], ["c", 3]);
  bus.setRemoteCount(1, 2, ["d"]);
  assertEquals(open(), "d", "the same count, another session");
  anonymous();
  bus.setRemoteCount(1, 0);
  assertEquals([open(), bus.listenerCount(1)], ["", 0]);
  assertEquals(told, ["1:1:a", "1:2:a", "1:3:a,b", "1:4:a,b", "1:3:a,b", "1:2:b", "1:1:", "1:0:"]);
});

Deno.test("bus: pages not looked at, here and on other nodes", () => {
  const bus = new EventBus();
  const told: number[] = [];
  bus.setRelay({ localCount: (_uid, _count, _sessions, away) => told.push(away), relay: () => {} });
  const events: number[] = [];
  bus.tap((_, ev) => ev.event === "listeners" && events.push(bus.hereCount(1)), ["listeners"]);
  const desk = () => {};
  const stopDesk = bus.subscribe(1, desk, "a");
  const stopLaptop = bus.subscribe(1, () => {}, "b");
  assertEquals(bus.hereCount(1), 2);
  bus.setHere(1, desk, false);
  assertEquals([bus.hereCount(1), bus.localAway(1), bus.listenerCount(1)], [1, 1, 2]);
  bus.setHere(1, desk, false); // told again: no change
  bus.setHere(1, () => {}, false); // not a socket of the user's: nothing
  bus.setRemoteCount(1, 3, ["c"], 2);
  assertEquals([bus.hereCount(1), bus.listenerCount(1)], [2, 5]);
  bus.setRemoteCount(1, 3, ["c"], 3); // the same sockets, one more out of view
  assertEquals(bus.hereCount(1), 1);
  stopDesk(); // a page out of view that closes is no longer counted either way
  assertEquals([bus.hereCount(1), bus.localAway(1)], [1, 0]);
  bus.setRemoteCount(1, 0);
  stopLaptop();
  assertEquals(bus.hereCount(1), 0);
  assertEquals(told, [0, 0, 1, 0, 0]);
  // A change of only the other nodes' pages out of view is told to the taps too.
  assertEquals(events, [1, 2, 1, 2, 1, 1, 1, 0]);
});
