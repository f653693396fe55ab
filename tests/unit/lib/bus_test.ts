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
