/**
 * The message store's core is enough to run Parley: a backend without the optional search and
 * notifications capabilities (here the SQLite store with them hidden) serves history, answers a
 * search with a clear error and shows no notifications, instead of crashing.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import type { MessageStore } from "../../store/message_types.ts";

/** Only the core of a message store: what every backend implements. */
function coreOnly(m: MessageStore): MessageStore {
  return {
    append: (msg) => m.append(msg),
    flush: () => m.flush(),
    historyOf: (conversation, q) => m.historyOf(conversation, q),
    clear: (conversation) => m.clear(conversation),
  };
}

Deno.test("a message store with only the core serves history; search and notifications degrade", async (t) => {
  const a = await startApp({}, (store) => ({ ...store, messages: coreOnly(store.messages) }));
  try {
    const cookie = await a.register("core@example.com");
    const { store } = a.deps;
    const user = (await store.users.byEmail("core@example.com"))!;
    const conn = await store.connections.create({
      userId: user.id,
      connectionId: "irc-core",
      name: "core",
      url: "irc://127.0.0.1:1?nick=me",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
    const conv = await store.conversations.ensure(conn.id, "#test", "#test");
    for (const text of ["hello there", "me: look", "bye"]) {
      const { ts } = await store.messages.append({
        conversation: conv.id,
        userId: user.id,
        from: "bob",
        type: "private",
        text,
        highlight: text.startsWith("me:"),
      });
      assertEquals(typeof ts, "number");
    }
    const get = (path: string) => a.request(path, { headers: { cookie } });
    const base = "/api/connection/irc-core/conversation/%23test/messages";

    await t.step("history pages come from the core", async () => {
      const res = await get(`${base}?limit=2`);
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.messages.map((m: { message: string }) => m.message), [
        "me: look",
        "bye",
      ]);
      assertEquals(typeof res.body.before, "string");
    });

    await t.step("a match filter and a search say that search is not available", async () => {
      for (const path of [`${base}?match=hello`, "/api/search?match=hello"]) {
        const res = await get(path);
        assertEquals(res.status, 503, path);
        assertEquals(res.body.errors[0].message, "Search is not available.", path);
      }
      assertEquals((await get(`${base}?match=hello`)).body.errors[0].path, "/query/match");
    });

    await t.step("notifications are an empty list, and marking them read works", async () => {
      const list = await get("/api/notifications");
      assertEquals(list.status, 200);
      assertEquals(list.body, { messages: [], end: true });
      const read = await a.post("/api/notifications/read", {}, { cookie });
      assertEquals(read.status, 200);
      const me = await get("/api/user");
      assertEquals(me.status, 200);
      assertEquals(me.body.unread, 0);
    });
  } finally {
    await a.close();
  }
});
