/**
 * bouncer/reply_ids.ts: the server's msgid of a line and Parley's, both ways: remembered for the
 * lines relayed lately (the oldest forgotten past the bound), else read from a real SQLite store;
 * an id the store does not have, or a store that does not answer in time, leaves the id as it is.
 */
import { assertEquals } from "../../support/assert.ts";
import { LOOKUP, ReplyIds } from "../../../bouncer/reply_ids.ts";
import { msgidOf } from "../../../lib/msgid.ts";
import type { Store } from "../../../store/mod.ts";
import { userWithConnection, withStore } from "./fakes.ts";

const TS = Date.UTC(2026, 0, 1) * 1000;

/** jane's #chan with one line the server named `srv-1`. */
async function seeded(store: Store) {
  const { user, connection } = await userWithConnection(store);
  const chan = await store.conversations.ensure(connection.id, "#chan", "#Chan");
  await store.messages.append({
    conversation: chan.id,
    userId: user.id,
    from: "bob",
    type: "private",
    text: "hello",
    ts: TS,
    serverMsgid: "srv-1",
  });
  return { connection: connection.id, own: msgidOf(chan.id, TS) };
}

Deno.test("reply ids: remembered lines, the oldest forgotten past 4,096", async () => {
  const ids = new ReplyIds();
  for (let i = 0; i <= 4096; i++) ids.remember(`srv-${i}`, `own-${i}`);
  assertEquals(ids.ownNow("srv-4096"), "own-4096");
  assertEquals(ids.ownNow("srv-0"), undefined, "the oldest went");
  assertEquals(await ids.server(1, "own-0"), "own-0", "forgotten, and no store");
  assertEquals(await ids.server(1, "own-1"), "srv-1");
  assertEquals(await ids.own(1, "#chan", "srv-0"), undefined);
});

Deno.test("reply ids: a server giving one id again and again keeps one pair", async () => {
  const ids = new ReplyIds();
  for (let i = 0; i < 10_000; i++) ids.remember("srv-same", `own-${i}`);
  assertEquals(ids.ownNow("srv-same"), "own-9999");
  assertEquals(await ids.server(1, "own-9999"), "srv-same");
  assertEquals(await ids.server(1, "own-0"), "own-0", "the earlier pairs are gone");
});

Deno.test("reply ids: a line not remembered is found in the store, both ways", async () => {
  await withStore(async (store) => {
    const { connection, own } = await seeded(store);
    const ids = new ReplyIds(store);
    assertEquals(ids.ownNow("srv-1"), undefined);
    assertEquals(await ids.own(connection, "#CHAN", "srv-1"), own);
    assertEquals(ids.ownNow("srv-1"), own, "remembered once found");
    assertEquals(await new ReplyIds(store).server(connection, own), "srv-1");
    // Another connection's line, a line the store does not have: the id as it was.
    assertEquals(await new ReplyIds(store).server(connection + 1, own), own);
    assertEquals(await ids.own(connection, "#chan", "srv-none"), undefined);
    assertEquals(await new ReplyIds(store).own(connection, "#nowhere", "srv-1"), undefined);
  });
});

Deno.test("reply ids: a store that does not answer in time leaves the id as it is", async () => {
  await withStore(async (store) => {
    const { connection, own } = await seeded(store);
    const history = store.messages.history!;
    const never = new Promise<never>(() => {});
    const stalled = {
      ...store,
      messages: {
        ...store.messages,
        history: { ...history, byServerMsgid: () => never, serverMsgid: () => never },
      },
    } as Store;
    const was = LOOKUP.ms;
    LOOKUP.ms = 50;
    try {
      const ids = new ReplyIds(stalled);
      assertEquals(await ids.own(connection, "#chan", "srv-1"), undefined);
      assertEquals(await ids.server(connection, own), own);
    } finally {
      LOOKUP.ms = was;
    }
  });
});
