/**
 * The relay keeps nothing per connection until an IRC client attaches (bouncer/relay.ts), and a
 * hub reads its connection's one state (irc/upstream_state.ts) instead of keeping its own.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { EventBus } from "../../../lib/bus.ts";
import { IrcConnection } from "../../../irc/engine/connection.ts";
import { parseMessage } from "../../../irc/protocol/message.ts";
import type { ConnectionRecord } from "../../../store/connections.ts";
import { type Downstream, Relay } from "../../../bouncer/relay.ts";
import { Caps } from "../../../bouncer/caps.ts";
import { DetachedChannels } from "../../../bouncer/detached.ts";
import { ManualClock } from "../../support/manual_clock.ts";
import { poll } from "../../support/poll.ts";
import { aliceRecord } from "../../support/fake_connection.ts";
import { bareConnection } from "../../support/bare_connection.ts";
import { withStore } from "./fakes.ts";

/** A connection that is never connected: its state is fed by hand, as its transport would. */
function connection(id: number, over: Partial<ConnectionRecord> = {}): IrcConnection {
  return bareConnection(`irc://127.0.0.1:1?nick=u${id}`, {
    record: {
      id,
      userId: 1 + (id % 5),
      connectionId: `irc-${id}`,
      name: "x",
      wantedState: "disconnected",
      ...over,
    },
  }).conn;
}

/** One server line through the connection's state, then through the relay, as in the daemon. */
function line(relay: Relay, conn: IrcConnection, raw: string): void {
  const message = parseMessage(raw)!;
  conn.upstream.see(message);
  relay.line(conn, { message });
}

Deno.test("relay: no hub, nothing per connection, while no IRC client is attached", () => {
  const relay = new Relay(new EventBus());
  const conns = Array.from({ length: 50 }, (_, i) => connection(i + 1));
  relay.bind((id) => conns[id - 1]);
  relay.start();
  try {
    for (const conn of conns) {
      const nick = `u${conn.record.id}`;
      line(relay, conn, `:srv 001 ${nick} :Welcome`);
      line(relay, conn, `:srv 005 ${nick} CHANTYPES=# PREFIX=(ov)@+ :are supported`);
      line(relay, conn, `:${nick}!u@h JOIN #c`);
      for (let i = 0; i < 20; i++) line(relay, conn, `:bob!b@h PRIVMSG #c :line ${i}`);
    }
    const kept = conns.filter((c) => relay.existing(c.userId, c.id) !== undefined).length;
    assertEquals(kept, 0, "hubs made for connections no client uses");
    assertEquals(relay.hubs, 0);

    // A client attaches to one: its hub reads that connection's state, already full.
    const conn = conns[6];
    const hub = relay.hub(conn.userId, conn.id, conn.record.id);
    assertEquals(relay.hubs, 1);
    assert(hub.state === conn.upstream, "the connection's state, not a copy");
    assertEquals(hub.state.channel("#C")?.name, "#c");
    assertEquals(hub.nick, "u7");
    const seen: string[] = [];
    const client: Downstream = {
      caps: new Caps(),
      write: (l) => void seen.push(l),
      quit() {},
    };
    hub.attach(client);
    line(relay, conn, ":u7!u@h NICK seven");
    line(relay, conn, ":carol!c@h JOIN #c");
    assertEquals(hub.nick, "seven");
    assertEquals(seen.map((l) => l.replace(/^@\S+ /, "")), [
      ":u7!u@h NICK seven",
      ":carol!c@h JOIN #c",
    ]);
    // Lines of the other connections still make nothing.
    line(relay, conns[0], ":bob!b@h PRIVMSG #c :more");
    assertEquals(relay.hubs, 1);
  } finally {
    relay.stop();
  }
});

Deno.test("relay: a hub follows the nick in the order lines are relayed", () => {
  const relay = new Relay(new EventBus());
  const conn = connection(1);
  relay.bind(() => conn);
  relay.start();
  try {
    conn.upstream.see(parseMessage(":srv 001 u1 :Welcome")!);
    const hub = relay.hub(conn.userId, conn.id, conn.record.id);
    const seen: string[] = [];
    const caps = new Caps();
    assert(caps.request("message-tags"));
    hub.attach({ caps, write: (l) => void seen.push(l), quit() {} });
    // The connection's state reads a NICK the relay has not passed on yet (its queue is behind):
    // a line to the old nick relayed before it is still the user's.
    const toOld = parseMessage(":bob!b@h PRIVMSG u1 :hi")!;
    const nick = parseMessage(":u1!u@h NICK renamed")!;
    conn.upstream.see(toOld);
    conn.upstream.see(nick);
    assertEquals(conn.upstream.nick, "renamed");
    relay.line(conn, { message: toOld, produced: { kind: "stored", msgid: "m1", ts: 1e15 } });
    assertEquals(hub.nick, "u1");
    relay.line(conn, { message: nick });
    assertEquals(hub.nick, "renamed");
    assert(seen[0].includes("msgid=m1"), `stored as the user's private line: ${seen[0]}`);
  } finally {
    relay.stop();
  }
});

Deno.test("relay: a connection with a detaching channel gets its hub at its first line", async () => {
  const clock = new ManualClock();
  const realClock = DetachedChannels.clock;
  DetachedChannels.clock = clock;
  await withStore(async (store) => {
    const { user, record } = await aliceRecord(store);
    const chan = await store.conversations.ensure(record.id, "#det", "#det");
    await store.conversations.setDetach(chan.id, { detachAfter: 60 });
    // Another connection with nothing detached: no hub for it.
    const quiet = connection(7);
    const conn = connection(record.id, { userId: user.id, connectionId: record.connectionId });
    // A relay made anew is what a restarted daemon has, with no IRC client attached.
    const relay = new Relay(new EventBus(), store);
    relay.bind((id) => (id === record.id ? conn : quiet));
    relay.start();
    try {
      await poll("the hub is made at the connection's first line", () => {
        line(relay, quiet, ":srv PING :x");
        line(relay, conn, ":srv 001 alice :Welcome");
        return relay.hubs === 1;
      });
      assert(relay.existing(user.id, record.connectionId), "the detaching connection's hub");
      await relay.existing(user.id, record.connectionId)!.loaded;
      clock.advance(61_000);
      await poll(
        "idle that long, #det detaches itself",
        async () => (await store.conversations.get(record.id, "#det"))!.detach.detached,
      );
    } finally {
      relay.stop();
      DetachedChannels.clock = realClock;
    }
  });
});

/** A connection whose server echoes the user's lines (echo-message), never connected. */
function echoing(id: number): IrcConnection {
  const conn = connection(id);
  Object.defineProperty(conn, "echoes", { get: () => true });
  return conn;
}

Deno.test("relay: a web line in flight when the hub is made keeps its place in the echo order", () => {
  const relay = new Relay(new EventBus());
  const conn = echoing(1);
  relay.bind(() => conn);
  relay.start();
  try {
    line(relay, conn, ":srv 001 u1 :Welcome");
    line(relay, conn, ":u1!u@h JOIN #c");
    // The web client's line is written while no IRC client ever attached: no hub yet.
    relay.wrote(conn, "#c", undefined);
    assertEquals(relay.hubs, 0);
    const hub = relay.hub(conn.userId, conn.id, conn.record.id);
    const caps = new Caps();
    caps.restore(["echo-message", "labeled-response", "message-tags", "server-time"], 302);
    const seen: string[] = [];
    const client: Downstream = { caps, write: (l) => void seen.push(l), quit() {} };
    hub.attach(client);
    const pending = hub.awaitEcho({ client, conversation: "#c", label: "l1" });
    relay.wrote(conn, "#C", pending.id);
    let n = 0;
    const echo = (text: string) => {
      const message = parseMessage(`:u1!u@h PRIVMSG #c :${text}`)!;
      conn.upstream.see(message);
      relay.line(conn, { message, produced: { kind: "stored", msgid: `m${++n}`, ts: 1e15 + n } });
    };
    echo("from the web");
    echo("from the client");
    const told = seen.map((l) => parseMessage(l)!).filter((m) => m.command === "PRIVMSG")
      .map((m) => [m.params[1], m.tags.get("label")]);
    assertEquals(told, [["from the web", undefined], ["from the client", "l1"]]);
  } finally {
    relay.stop();
  }
});

Deno.test("relay: lines in flight on connections without a hub are forgotten once echoed", () => {
  const relay = new Relay(new EventBus());
  const conns = Array.from({ length: 200 }, (_, i) => echoing(i + 1));
  relay.bind((id) => conns[id - 1]);
  relay.start();
  try {
    for (const conn of conns) line(relay, conn, `:srv 001 u${conn.record.id} :Welcome`);
    for (const conn of conns) {
      relay.wrote(conn, "#c", undefined);
      relay.wrote(conn, "bob", undefined);
      relay.wrote(conn, "#d", undefined);
      relay.wrote(conn, "carol", undefined);
    }
    assertEquals(relay.inFlight, conns.length);
    for (const conn of conns) {
      const me = `u${conn.record.id}`;
      line(relay, conn, `:${me}!u@h PRIVMSG #C :echoed`);
      line(relay, conn, `:${me}!u@h NOTICE #d,Carol :to both`);
      // A refusal gives its place up as an echo does.
      line(relay, conn, `:srv 401 ${me} bob :No such nick`);
    }
    assertEquals(relay.inFlight, 0, "nothing kept once every echo came");
    // A server that does not echo: nothing is kept at all.
    const plain = connection(999);
    relay.wrote(plain, "#c", undefined);
    assertEquals(relay.inFlight, 0);
    assertEquals(relay.hubs, 0);
  } finally {
    relay.stop();
  }
});

Deno.test("relay: a detachment change makes a hub only where the connection runs", async () => {
  await withStore(async (store) => {
    const { user, record } = await aliceRecord(store);
    const other = await store.connections.create({ ...record, connectionId: "irc-other" });
    for (const r of [record, other]) {
      const chan = await store.conversations.ensure(r.id, "#det", "#det");
      await store.conversations.setDetach(chan.id, { detached: true });
    }
    const conn = connection(record.id, { userId: user.id, connectionId: record.connectionId });
    const running = connection(other.id, { userId: user.id, connectionId: other.connectionId });
    // `conn` runs on another node (not live here) until it comes here; `running` runs here.
    let here = false;
    const bus = new EventBus();
    const relay = new Relay(bus, store);
    relay.bind((id) => (id === other.id ? running : here ? conn : undefined));
    relay.start();
    try {
      const state = { detached: true, relayDetached: "", reattachOn: "", detachAfter: 0 } as const;
      for (const r of [record, other]) {
        bus.tell(user.id, {
          event: "detach",
          connection_id: r.connectionId,
          channel: "#det",
          state,
          toggled: true,
        });
      }
      await poll(
        "the hub of the connection running here",
        () => relay.existing(user.id, other.connectionId) !== undefined,
      );
      assertEquals(relay.existing(user.id, record.connectionId), undefined);
      // Should it come to run here, it gets its hub at its first line, with the change.
      here = true;
      line(relay, conn, ":srv 001 alice :Welcome");
      const hub = relay.existing(user.id, record.connectionId);
      assert(hub, "its hub, made at its first line");
      await hub.loaded;
      assert(hub.detached.isDetached("#DET"));
    } finally {
      relay.stop();
    }
  });
});

Deno.test("relay: detachment changes missed here are read again from the store", async () => {
  await withStore(async (store) => {
    const { user, record } = await aliceRecord(store);
    const det = await store.conversations.ensure(record.id, "#det", "#det");
    const back = await store.conversations.ensure(record.id, "#back", "#back");
    await store.conversations.setDetach(back.id, { detached: true });
    const conn = connection(record.id, { userId: user.id, connectionId: record.connectionId });
    const bus = new EventBus();
    const relay = new Relay(bus, store);
    relay.bind(() => conn);
    relay.start();
    try {
      line(relay, conn, ":srv 001 alice :Welcome");
      const hub = relay.hub(user.id, record.connectionId, record.id);
      await hub.loaded;
      const seen: string[] = [];
      hub.attach({
        caps: new Caps(),
        write: (l) => void seen.push(l),
        quit() {},
        channelBurst: (channel) => Promise.resolve([`JOIN ${channel}`]),
      });
      // Another node stored these while this one was not listening: no detach event came.
      await store.conversations.setDetach(det.id, { detached: true });
      await store.conversations.setDetach(back.id, { detached: false });
      assert(!hub.detached.isDetached("#det") && hub.detached.isDetached("#back"));
      bus.tell(0, { event: "detach_missed" });
      await poll(
        "both read again",
        () => hub.detached.isDetached("#det") && !hub.detached.isDetached("#back"),
      );
      await poll("the client told", () => seen.length === 2);
      assertEquals(
        seen.map((l) => parseMessage(l)!).map((m) => [m.command, m.params[0]]).sort(),
        [["JOIN", "#back"], ["PART", "#det"]],
      );
    } finally {
      relay.stop();
    }
  });
});
