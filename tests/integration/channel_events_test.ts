// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Channel events in history: joins, parts, quits, kicks, nick changes, topic
 * changes and modes are stored with types of their own and come back from history (what a page
 * reload reads), but they are never unread, never notifications and never search results.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";
import { openSqliteStore } from "../../store/sqlite/mod.ts";
import { idleConnection } from "../support/backends.ts";
import { DatabaseSync } from "node:sqlite";

Deno.test("channel events are kept in history, not unread, notified or searchable", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const api = new ApiClient(server.url);
  await api.register("alice@example.com");
  const bob = await RawIrcClient.connect(irc.port, "bob");
  let carol: RawIrcClient | undefined;
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#events",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const history = async () =>
      (await api.get("/api/connection/irc-localhost/conversation/%23events/messages")).body
        .messages as any[];
    await poll("alice in #events", async () => (await history()).some((m) => m.type === "join"));
    await bob.join("#events");
    await bob.waitForMember("#events", "alice");
    // Each event is awaited in history before the next, so their order is the test's own.
    const then = async (type: string, act: () => Promise<unknown>) => {
      const n = (await history()).length;
      await act();
      await poll(
        `${type} stored`,
        async () => (await history()).slice(n).some((m) => m.type === type),
      );
    };
    // alice joined first, so she is an operator: she gives bob +o, bob does the rest.
    const send = (message: string) =>
      api.post("/api/connection/irc-localhost/conversation/%23events/messages", { message });
    await then("mode", () => send("/mode +o bob"));
    await then("topic", () => bob.send("TOPIC #events :what we talk about"));
    await then("nick_change", () => bob.send("NICK bobby"));
    await then("join", async () => {
      carol = await RawIrcClient.connect(irc.port, "carol");
      await carol.join("#events");
    });
    await then("part", () => carol!.send("PART #events :bye"));
    await then("join", () => carol!.join("#events"));
    await then("kick", () => bob.send("KICK #events carol :out"));
    await then("quit", () => bob.send("QUIT :gone"));
    const want = ["join", "join", "mode", "topic", "nick_change", "join", "part", "join", "kick"];
    const got = await history();
    assertEquals(got.map((m) => m.type), [...want, "quit"]);
    assertEquals(
      got.find((m) => m.type === "topic").message,
      "bob changed the topic to: what we talk about",
    );
    assertEquals(got.find((m) => m.type === "kick").message, "carol was kicked by bobby: out");
    // ngircd quotes a quit reason.
    assertEquals(got.find((m) => m.type === "quit").message, 'bobby quit: "gone"');
    assertEquals(got.find((m) => m.type === "nick_change").message, "bob is now known as bobby.");

    const conv = (await api.get("/api/conversations")).body.conversations
      .find((c: any) => c.conversation_id === "#events");
    assertEquals(conv.unread, 0, "events are not unread");
    assertEquals(conv.notifications, 0);
    assertEquals((await api.get("/api/notifications")).body.messages, []);
    // Searchable words of the events ("joined", "kicked", the topic) find nothing; the topic
    // itself is the conversation's topic, not a message.
    for (const word of ["joined", "kicked", "talk", "known"]) {
      const found = await api.get(`/api/search?match=${word}`);
      assertEquals(found.body.messages, [], word);
    }
    const bySender = await api.get("/api/search?from=bobby");
    assertEquals(bySender.body.messages, [], "events are not search results");
    assert(conv.topic === "what we talk about");
  } finally {
    await carol?.close();
    await bob.close().catch(() => {});
    await server.close();
    await irc.close();
  }
});

Deno.test("deleting channel events leaves the search index's deletion log alone", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-events-" });
  const store = await openSqliteStore(home);
  try {
    const user = await store.users.create("u@example.com", "x", []);
    const conn = await idleConnection(store, user.id);
    const conv = await store.conversations.ensure(conn.id, "#test", "#test");
    const add = (type: "join" | "part" | "private", text: string) =>
      store.messages.append({ conversation: conv.id, userId: user.id, from: "bob", type, text });
    add("join", "bob joined.");
    add("private", "hello there");
    add("part", "bob left.");
    await store.messages.searchable();
    await store.messages.clear(conv.id);
    const db = new DatabaseSync(`${home}/parley.db`, { readOnly: true });
    const logged = db.prepare("SELECT text FROM message_deletions").all().map((r) => r.text);
    db.close();
    // Only the indexed message: removing never-indexed rows would corrupt the index.
    assertEquals(logged, ["hello there"]);
  } finally {
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});
