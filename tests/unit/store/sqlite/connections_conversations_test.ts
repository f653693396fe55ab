/** The connection and conversation stores against a real SQLite database in a temp folder. */
import { assert, assertEquals } from "../../../support/assert.ts";
import { openSqliteStore, type SqliteStore } from "../../../../store/sqlite/mod.ts";

async function fresh(): Promise<SqliteStore> {
  const home = await Deno.makeTempDir({ prefix: "parley-irc-store-" });
  const store = await openSqliteStore(home);
  return {
    ...store,
    async close() {
      await store.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** A fresh store with one user and one connection of theirs. */
async function withConnection() {
  const store = await fresh();
  const u = await store.users.create("a@example.com", "x", []);
  const c = await store.connections.create({
    userId: u.id,
    connectionId: "irc-x",
    name: "x",
    url: "irc://x?nick=a",
    onConnectCommands: [],
    wantedState: "connected",
  });
  return { store, u, c };
}

Deno.test("connections: create, list per user, update, wanted, remove", async () => {
  const store = await fresh();
  const a = await store.users.create("a@example.com", "x", []);
  const b = await store.users.create("b@example.com", "x", []);
  const base = {
    name: "libera",
    onConnectCommands: ["/msg x y"],
    wantedState: "connected" as const,
  };
  const c1 = await store.connections.create({
    ...base,
    userId: a.id,
    connectionId: "irc-libera",
    url: "irc://h?nick=a",
  });
  await store.connections.create({
    ...base,
    userId: b.id,
    connectionId: "irc-libera",
    url: "irc://h?nick=b",
  });
  assertEquals(c1.onConnectCommands, ["/msg x y"]);
  assertEquals(c1.nick, "");
  assertEquals((await store.connections.list(a.id)).map((c) => c.url), ["irc://h?nick=a"]);
  assertEquals((await store.connections.get(b.id, "irc-libera"))?.url, "irc://h?nick=b");
  assertEquals(await store.connections.get(a.id, "irc-other"), undefined);
  const updated = await store.connections.update(c1.id, {
    wantedState: "disconnected",
    nick: "a2",
  });
  assertEquals(updated?.wantedState, "disconnected");
  assertEquals(updated?.nick, "a2");
  assertEquals(updated?.url, "irc://h?nick=a");
  assertEquals((await store.connections.wanted()).map((c) => c.userId), [b.id]);
  assert(await store.connections.remove(c1.id));
  assertEquals(await store.connections.list(a.id), []);
  await store.close();
});

Deno.test("conversations: ensure, unread, read, topic, joined, rename, cascade", async () => {
  const { store, u, c } = await withConnection();
  const chan = await store.conversations.ensure(c.id, "#parley", "#Parley");
  assertEquals((await store.conversations.ensure(c.id, "#parley", "#other")).id, chan.id);
  assertEquals(chan.name, "#Parley");
  assertEquals(chan.connectionId, "irc-x");
  await store.conversations.ensure(c.id, "bob", "Bob");
  assertEquals(await store.conversations.addUnread(chan.id), 1);
  assertEquals(await store.conversations.addUnread(chan.id), 2);
  await store.conversations.setTopic(chan.id, "Hello");
  await store.conversations.setJoined(chan.id, true);
  let got = await store.conversations.get(c.id, "#parley");
  assertEquals([got?.unread, got?.topic, got?.joined], [2, "Hello", true]);
  await store.conversations.markRead(chan.id);
  got = await store.conversations.get(c.id, "#parley");
  assertEquals(got?.unread, 0);
  assert((got?.lastRead ?? 0) > 0);
  const bob = (await store.conversations.get(c.id, "bob"))!;
  await store.conversations.addUnread(bob.id);
  await store.conversations.markConnectionRead(c.id);
  assertEquals((await store.conversations.listForUser(u.id)).map((v) => v.unread), [0, 0]);
  await store.conversations.rename(bob.id, "robert", "Robert");
  assertEquals(
    (await store.conversations.listForConnection(c.id)).map((v) => v.conversationId),
    ["#parley", "robert"],
  );
  await store.connections.remove(c.id);
  assertEquals(await store.conversations.listForUser(u.id), []);
  await store.close();
});
