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
