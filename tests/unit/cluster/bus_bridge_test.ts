/**
 * Events across nodes (cluster/bus_bridge.ts) on a real PostgreSQL: each node counts every
 * node's sockets of a user (including those of a node started later, from the table), an event
 * published on one node reaches the user's sockets on the others and only there, a node that
 * stops or is gone is no longer counted, and one counted as gone while it was there says its
 * sockets again at its next scan; each node knows the login sessions of the others' sockets and
 * how many of their pages are not looked at.
 */
import { assertEquals } from "../../support/assert.ts";
import { poll } from "../../support/poll.ts";
import { startPostgres } from "../../support/postgres.ts";
import { openPgStore } from "../../../store/pg/mod.ts";
import { PgChannel } from "../../../cluster/channel.ts";
import { BusBridge } from "../../../cluster/bus_bridge.ts";
import { EventBus } from "../../../lib/bus.ts";
import type { PushedEvent } from "../../../protocol/events.ts";

const SECRET = "one secret for every node";
const ALICE = 1;

const message = (text: string) =>
  ({
    event: "message",
    connection_id: "c",
    conversation_id: "#a",
    from: "x",
    message: text,
    ts: "2026-01-01T00:00:00.000000Z",
    type: "private",
    highlight: false,
    msgid: "1.1",
  }) as PushedEvent;

Deno.test("bus bridge: socket counts and events cross nodes", async (t) => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const node = (id: string) => {
    const bus = new EventBus();
    return { bus, bridge: new BusBridge(bus, new PgChannel(store.sql, SECRET), id) };
  };
  const a = node("node-a");
  const b = node("node-b");
  const c = node("node-c");
  const seenOnB: string[] = [];
  const taps: string[] = [];
  try {
    await a.bridge.start();
    await b.bridge.start();
    a.bus.tap((_, ev) => taps.push(`a:${ev.event}`), ["message"]);
    b.bus.tap((_, ev) => taps.push(`b:${ev.event}`), ["message"]);
    const unsubscribe = [
      b.bus.subscribe(ALICE, (ev) => seenOnB.push((ev as { message: string }).message)),
      b.bus.subscribe(ALICE, (ev) => seenOnB.push((ev as { message: string }).message)),
    ];
    await t.step("a node counts the sockets the others have", async () => {
      await poll("node a counts node b's two sockets", () => a.bus.listenerCount(ALICE) === 2);
      assertEquals(a.bus.localCount(ALICE), 0);
    });
    await t.step("a node started later reads the counts from the table", async () => {
      await c.bridge.start();
      assertEquals(c.bus.listenerCount(ALICE), 2);
      c.bus.subscribe(ALICE, () => {});
      await poll("node a counts three", () => a.bus.listenerCount(ALICE) === 3);
      await poll("node b counts its two and c's one", () => b.bus.listenerCount(ALICE) === 3);
    });
    await t.step("an event published on one node reaches the sockets of the others", async () => {
      const seenOnC: unknown[] = [];
      c.bus.subscribe(ALICE, (ev) => seenOnC.push(ev));
      a.bus.publish(ALICE, message("from a"));
      await poll("node b's sockets got it", () => seenOnB.length === 2);
      assertEquals(seenOnB, ["from a", "from a"]);
      await poll("node c's socket got it", () => seenOnC.length === 1);
      // Taps run once, where the event was published.
      assertEquals(taps, ["a:message"]);
    });
    await t.step("a stopped node's sockets are no longer counted", async () => {
      await c.bridge.stop();
      await poll("node a no longer counts c", () => a.bus.listenerCount(ALICE) === 2);
      for (const un of unsubscribe) un();
      await poll("node a counts none", () => a.bus.listenerCount(ALICE) === 0);
      assertEquals(
        (await store.sql`SELECT count(*)::int AS n FROM cluster_listeners`)[0].n,
        0,
        "no row is left",
      );
    });
    await t.step("a scan forgets a node that is gone without saying so", async () => {
      const ALIVE = ["node-a", "node-b", "node-d"];
      const ghosts = new PgChannel(store.sql, SECRET);
      // A node that announced 4 sockets, then died (kill -9) without withdrawing them.
      await store
        .sql`INSERT INTO cluster_listeners (node, user_id, count) VALUES ('ghost', ${ALICE}, 4)`;
      await ghosts.send("parley_listeners", { node: "ghost", user: ALICE, count: 4 });
      await poll("node a counts the ghost's sockets", () => a.bus.listenerCount(ALICE) === 4);
      const d = node("node-d");
      await d.bridge.start();
      try {
        assertEquals(d.bus.listenerCount(ALICE), 4);
        // Another dead node whose row is gone already (an earlier prune deleted it, and its
        // word to the others was lost): only the counts in memory remember its 3 sockets.
        await ghosts.send("parley_listeners", { node: "ghost-2", user: ALICE, count: 3 });
        await poll("node a counts both ghosts", () => a.bus.listenerCount(ALICE) === 7);
        await poll("node d counts both ghosts", () => d.bus.listenerCount(ALICE) === 7);
        await d.bridge.reconcile(ALIVE);
        assertEquals(d.bus.listenerCount(ALICE), 0, "the pruning node forgets both");
        // It tells the others of the rows it deleted: they stop counting that ghost now, not
        // at their own next scan (until then push and automatic away think the user there).
        await poll("node a forgets the first ghost", () => a.bus.listenerCount(ALICE) === 3);
        await poll("node b forgets the first ghost", () => b.bus.listenerCount(ALICE) === 3);
        assertEquals(
          (await store.sql`SELECT count(*)::int AS n FROM cluster_listeners`)[0].n,
          0,
        );
        // The second one each node forgets at its own scan: the table is what counts.
        await a.bridge.reconcile(ALIVE);
        assertEquals(a.bus.listenerCount(ALICE), 0);
      } finally {
        await d.bridge.stop();
      }
    });
    await t.step("a node counted as gone while there says its sockets again", async () => {
      const un = b.bus.subscribe(ALICE, () => {});
      try {
        await poll("node a counts b's socket", () => a.bus.listenerCount(ALICE) === 1);
        // Node b's lock session was away at node a's scan (PostgreSQL restarting): a deleted
        // b's rows and told the nodes.
        await a.bridge.reconcile(["node-a"]);
        assertEquals(a.bus.listenerCount(ALICE), 0);
        // Back at b's own scan: its sockets are said again, and a counts them.
        await b.bridge.reconcile(["node-a", "node-b"]);
        await poll("node a counts b's socket again", () => a.bus.listenerCount(ALICE) === 1);
        // And a reads them from the table at its scan, had the word been lost.
        a.bus.setRemoteCount(ALICE, 0);
        await a.bridge.reconcile(["node-a", "node-b"]);
        assertEquals(a.bus.listenerCount(ALICE), 1);
      } finally {
        un();
      }
    });
    await t.step(
      "a node knows the others' sockets: their login sessions, their pages out of view",
      async () => {
        const desk = b.bus.subscribe(ALICE, () => {}, "desk");
        const sessions = (n: { bus: EventBus }) => [...n.bus.openSessions(ALICE)].sort().join(",");
        try {
          await poll("node a sees the desk's session", () => sessions(a) === "desk");
          // One socket closes and another of a new session opens: the count stays, the sessions
          // change.
          const laptop = b.bus.subscribe(ALICE, () => {}, "laptop");
          desk();
          await poll("node a sees the laptop's session alone", () => sessions(a) === "laptop");
          assertEquals(a.bus.listenerCount(ALICE), 1);
          // A node started later reads them from the table.
          const e = node("node-e");
          await e.bridge.start();
          try {
            assertEquals(sessions(e), "laptop");
          } finally {
            await e.bridge.stop();
          }
          // Its page out of view: node a counts it as not looked at, as does a node started later.
          const fn = () => {};
          const tablet = b.bus.subscribe(ALICE, fn, "tablet");
          await poll("node a counts the tablet", () => a.bus.listenerCount(ALICE) === 2);
          b.bus.setHere(ALICE, fn, false);
          await poll("node a: one page looked at", () => a.bus.hereCount(ALICE) === 1);
          const f = node("node-f");
          await f.bridge.start();
          try {
            assertEquals([f.bus.listenerCount(ALICE), f.bus.hereCount(ALICE)], [2, 1]);
          } finally {
            await f.bridge.stop();
          }
          b.bus.setHere(ALICE, fn, true);
          await poll("node a: both looked at", () => a.bus.hereCount(ALICE) === 2);
          tablet();
          laptop();
          await poll("node a sees none", () => sessions(a) === "");
        } finally {
          desk();
        }
      },
    );
  } finally {
    await a.bridge.stop();
    await b.bridge.stop();
    await store.close();
    await pg.close();
  }
});

/**
 * A channel whose table reads wait for the test: what the nodes say on it is handed to the
 * bridge by hand, and the scan's read of `cluster_listeners` answers when told.
 */
function heldChannel() {
  const handlers = new Map<string, (m: unknown) => void>();
  const reads: { resolve: (rows: unknown[]) => void }[] = [];
  const sql = Object.assign(
    (strings: TemplateStringsArray) => {
      const text = strings.join("?");
      if (/^SELECT node, user_id, count\b[\s\S]*FROM cluster_listeners/.test(text)) {
        return new Promise((resolve) => reads.push({ resolve }));
      }
      return Promise.resolve([]); // the deletion of dead nodes' rows: none
    },
    { array: (a: unknown[]) => a },
  );
  const channel = {
    sql,
    send: () => Promise.resolve(),
    listen: (name: string, fn: (m: unknown) => void) => {
      handlers.set(name, fn);
      return Promise.resolve(() => Promise.resolve());
    },
  } as unknown as PgChannel;
  return { channel, handlers, reads };
}

Deno.test("bus bridge: sockets told while a scan reads the table are kept", async () => {
  const bus = new EventBus();
  const { channel, handlers, reads } = heldChannel();
  const bridge = new BusBridge(bus, channel, "node-a");
  const started = bridge.start();
  await poll("the start's read", () => reads.length === 1);
  reads.shift()!.resolve([]);
  await started;
  const scan = bridge.reconcile(["node-a", "node-b"]);
  await poll("the scan's read", () => reads.length === 1);
  // Node b's socket opens: its row is written after the read's snapshot, then it says so.
  handlers.get("parley_listeners")!({ node: "node-b", user: ALICE, count: 1 });
  assertEquals(bus.listenerCount(ALICE), 1);
  reads.shift()!.resolve([]);
  await scan;
  // The read predates it: without the guard the socket was forgotten until the next scan.
  assertEquals(bus.listenerCount(ALICE), 1);
  // The next scan reads the row.
  const next = bridge.reconcile(["node-a", "node-b"]);
  await poll("the next scan's read", () => reads.length === 1);
  reads.shift()!.resolve([{ node: "node-b", user_id: ALICE, count: 1 }]);
  await next;
  assertEquals(bus.listenerCount(ALICE), 1);
});
