/**
 * The event bus (lib/bus.ts): who would receive a user's event, and recording a message
 * (irc/chat/record.ts) for a user with no socket open but a tap that wants its events.
 */
import { assertEquals } from "../../support/assert.ts";
import { EventBus } from "../../../lib/bus.ts";
import type { TapEvent } from "../../../protocol/events.ts";
import { openStore } from "../../../store/mod.ts";
import { IrcConnection } from "../../../irc/engine/connection.ts";
import { recordMessage } from "../../../irc/chat/record.ts";

Deno.test("bus: an event would be received by the user's sockets or by a tap that wants it", () => {
  const bus = new EventBus();
  assertEquals(bus.wouldReceive(1, "message"), false);
  const untapNotes = bus.tap(() => {}, ["notification"]);
  assertEquals(bus.wouldReceive(1, "notification"), true, "a tap for notifications");
  assertEquals(bus.wouldReceive(1, "message"), false, "a tap for notifications only");
  const unsubscribe = bus.subscribe(1, () => {});
  assertEquals(bus.wouldReceive(1, "message"), true, "an open socket gets everything");
  assertEquals(bus.wouldReceive(2, "message"), false, "another user's socket does not count");
  unsubscribe();
  const untapAll = bus.tap(() => {});
  assertEquals(bus.wouldReceive(2, "unread"), true, "a tap without kinds sees every kind");
  untapAll();
  untapNotes();
  assertEquals(bus.wouldReceive(1, "notification"), false);
});

Deno.test("bus: a tap gets only the kinds it asked for, plus listener counts when asked", () => {
  const bus = new EventBus();
  const seen: TapEvent["event"][] = [];
  bus.tap((_uid, ev) => void seen.push(ev.event), ["listeners", "shutdown"]);
  const unsubscribe = bus.subscribe(1, () => {});
  bus.publish(1, { event: "notifications", unread: 0 });
  bus.broadcast({ event: "shutdown" });
  unsubscribe();
  assertEquals(seen, ["listeners", "shutdown", "listeners"]);
});

Deno.test("record: with no socket open, a tap that wants messages still gets them", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-bus-" });
  const store = await openStore(home);
  try {
    const user = await store.users.create("a@example.com", "x", []);
    const record = await store.connections.create({
      userId: user.id,
      connectionId: "irc-x",
      name: "x",
      url: "irc://127.0.0.1:1?nick=alice",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
    const conn = new IrcConnection(record, {
      listener: {
        changed() {},
        attach: () => ({
          take: () => false,
          room: () => undefined,
          members: () => Promise.resolve(undefined),
          sees: () => false,
          rejoining() {},
          released() {},
        }),
        registered() {},
        retry() {},
        gone() {},
      },
    });
    const bus = new EventBus();
    const seen: TapEvent[] = [];
    bus.tap((_uid, ev) => void seen.push(ev), ["message", "unread"]);
    await recordMessage({ store, bus }, conn, {
      name: "bob",
      from: "bob",
      type: "private",
      text: "hello",
    });
    const kinds = seen.map((e) => e.event === "state" ? `state ${e.type}` : e.event);
    assertEquals(kinds, ["message", "unread"]);
    const message = seen[0];
    assertEquals(message.event === "message" && message.message, "hello");
  } finally {
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});
