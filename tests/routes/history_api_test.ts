import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { parseMicros } from "../../protocol/time.ts";

const T0 = Date.UTC(2026, 0, 1) * 1000;

Deno.test("history API: pages, search and notifications over HTTP", async (t) => {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  try {
    const { admin, user } = await adminAndUser(a);
    // Connections are made through the API (staying disconnected); messages are written to the
    // store as the IRC side writes them.
    for (const c of [admin, user]) {
      const res = await c.post("/api/connections", {
        url: "irc://127.0.0.1:1?nick=me",
        wanted_state: "disconnected",
      });
      assertEquals(res.status, 200, JSON.stringify(res.body));
    }
    const { store } = a.deps;
    const adminId = (await store.users.byEmail("admin@example.com"))!.id;
    const userId = (await store.users.byEmail("user@example.com"))!.id;
    const adminConn = (await store.connections.get(adminId, "irc-localhost"))!;
    const userConn = (await store.connections.get(userId, "irc-localhost"))!;
    const chan = await store.conversations.ensure(adminConn.id, "#test", "#Test");
    const server0 = await store.conversations.ensure(adminConn.id, "", "");
    const userChan = await store.conversations.ensure(userConn.id, "#test", "#test");
    for (let i = 0; i < 250; i++) {
      store.messages.append({
        conversation: chan.id,
        userId: adminId,
        from: i % 2 ? "alice" : "bob",
        type: i % 7 ? "private" : "action",
        text: i === 100 ? "admin: the deploy is done" : `line ${i}`,
        ts: T0 + Math.floor(i / 25) * 1_000_000,
        highlight: i === 100,
      });
    }
    store.messages.append({
      conversation: server0.id,
      userId: adminId,
      from: "irc.test",
      type: "notice",
      text: "welcome",
    });
    store.messages.append({
      conversation: userChan.id,
      userId,
      from: "eve",
      type: "private",
      text: "user deploy secret",
    });
    await store.messages.flush();
    await a.searchable();
    const base = "/api/connection/irc-localhost/conversation/%23test/messages";

    await t.step("the newest page, oldest first, with before and without after", async () => {
      const res = await admin.get(base);
      assertEquals(res.status, 200);
      assertEquals(res.body.messages.length, 60);
      assertEquals(res.body.messages[59].message, "line 249");
      assertEquals(res.body.messages[0].type, "private");
      assert(typeof res.body.before === "string");
      assertEquals(res.body.after, undefined);
      assert(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(res.body.messages[0].ts));
    });

    await t.step("walking back with before returns all 250 once, in order", async () => {
      const seen: string[] = [];
      let query = "?limit=70";
      for (let i = 0; i < 10; i++) {
        const res = await admin.get(base + query);
        seen.unshift(...res.body.messages.map((m: { message: string }) => m.message));
        if (!res.body.before) break;
        query = `?limit=70&before=${encodeURIComponent(res.body.before)}`;
      }
      assertEquals(seen.length, 250);
      assertEquals(new Set(seen).size, 250);
      assertEquals(seen[0], "line 0");
    });

    await t.step("around, limit bounds and the .json suffix", async () => {
      const around = new Date(T0 / 1000 + 4000).toISOString();
      const res = await admin.get(`${base}.json?around=${around}&limit=3`);
      assertEquals(res.body.messages.map((m: { message: string }) => m.message), [
        "line 97",
        "line 98",
        "line 99",
        "admin: the deploy is done",
        "line 101",
        "line 102",
      ]);
      assertEquals((await admin.get(`${base}?limit=1000`)).body.messages.length, 200);
    });

    await t.step("after and before together are a window, as in Convos", async () => {
      const at = (ms: number) => encodeURIComponent(new Date(T0 / 1000 + ms).toISOString());
      // Lines 25 to 74 lie between the two times: all of them, since the window's limit is 200.
      const res = await admin.get(`${base}?after=${at(500)}&before=${at(2500)}`);
      assertEquals(res.status, 200);
      const lines = res.body.messages.map((m: { message: string }) => m.message);
      assertEquals(lines.length, 50);
      assertEquals(lines[0], "line 25");
      assertEquals(lines[49], "line 74");
      // Given, limit still applies, oldest first from `after`.
      const some = await admin.get(`${base}?after=${at(500)}&before=${at(2500)}&limit=3`);
      assertEquals(some.body.messages.map((m: { message: string }) => m.message), [
        "line 25",
        "line 26",
        "line 27",
      ]);
      // backend-file-messages.t:200 and :203: after later than before, and over twelve months.
      const reversed = await admin.get(`${base}?after=${at(2500)}&before=${at(500)}`);
      assertEquals(reversed.status, 400);
      assertEquals(reversed.body.errors[0], {
        message: 'Must be before "/after".',
        path: "/query/before",
      });
      const wide = await admin.get(
        `${base}?after=2015-06-09T02:39:51Z&before=2016-06-15T02:39:58Z`,
      );
      assertEquals(wide.status, 400);
      assertEquals(wide.body.errors[0], {
        message: 'Must be less than "/after" - 12 months.',
        path: "/query/before",
      });
    });

    await t.step("match filters the conversation", async () => {
      const res = await admin.get(`${base}?match=deplo`);
      assertEquals(res.body.messages.map((m: { message: string }) => m.message), [
        "admin: the deploy is done",
      ]);
    });

    await t.step("connectionMessages lists the server's own messages", async () => {
      const res = await admin.get("/api/connection/irc-localhost/messages");
      assertEquals(res.status, 200);
      assertEquals(res.body.messages.map((m: { message: string }) => m.message), ["welcome"]);
      assertEquals(res.body.messages[0].type, "notice");
    });

    await t.step("bad queries are 400s with the field's path", async () => {
      const cases: [string, string][] = [
        ["?before=yesterday", "/query/before"],
        ["?after=2026-13-01T00:00:00Z", "/query/after"],
        ["?around=x", "/query/around"],
        ["?limit=0", "/query/limit"],
        ["?limit=abc", "/query/limit"],
        ["?limit=-5", "/query/limit"],
        [`?match=${"x".repeat(501)}`, "/query/match"],
      ];
      for (const [q, path] of cases) {
        const res = await admin.get(base + q);
        assertEquals(res.status, 400, q);
        assertEquals(res.body.errors[0].path, path, q);
      }
    });

    await t.step("a huge match is refused, not a crash", async () => {
      // fetch itself refuses URLs near a megabyte; 60 kB is past what any client should send.
      const res = await admin.get(`/api/search?match=${"a".repeat(60_000)}`);
      assert(res.status >= 400 && res.status < 500, `status ${res.status}`);
      assertEquals((await admin.get("/api/user")).status, 200, "the server still answers");
    });

    await t.step("unknown and foreign conversations are 404", async () => {
      assertEquals(
        (await admin.get("/api/connection/irc-localhost/conversation/%23nope/messages")).status,
        404,
      );
      assertEquals(
        (await admin.get("/api/connection/irc-nope/conversation/%23test/messages")).status,
        404,
      );
      assertEquals((await admin.get("/api/connection/irc-nope/messages")).status, 404);
      // The user has their own irc-localhost/#test: they see only their own message there.
      const mine = await user.get(base);
      assertEquals(mine.body.messages.map((m: { message: string }) => m.message), [
        "user deploy secret",
      ]);
    });

    await t.step("search finds across conversations with ids, and only the caller's", async () => {
      const res = await admin.get("/api/search?match=deplo");
      assertEquals(res.status, 200);
      assertEquals(res.body.messages.length, 1);
      assertEquals(res.body.messages[0].connection_id, "irc-localhost");
      assertEquals(res.body.messages[0].conversation_id, "#test");
      assertEquals(res.body.end, true);
      const theirs = await user.get("/api/search?match=deplo");
      assertEquals(theirs.body.messages.map((m: { message: string }) => m.message), [
        "user deploy secret",
      ]);
      assertEquals((await admin.get("/api/search")).body.messages, []);
      const hostile = await admin.get(
        `/api/search?match=${encodeURIComponent('NEAR( "a AND * OR')}`,
      );
      assertEquals(hostile.status, 200);
      const nick = await admin.get("/api/search?match=%40alice&limit=5");
      assertEquals(nick.body.messages.length, 5);
      assertEquals(nick.body.end, false);
      assert(
        parseMicros(nick.body.messages[0].ts)! > parseMicros(nick.body.messages[4].ts)!,
        "newest first",
      );
    });

    await t.step("notifications, the user's unread count, and mark as read", async () => {
      assertEquals((await admin.get("/api/user")).body.unread, 1);
      const res = await admin.get("/api/notifications");
      assertEquals(res.body.messages.map((m: { message: string }) => m.message), [
        "admin: the deploy is done",
      ]);
      assertEquals(res.body.messages[0].conversation_id, "#test");
      assertEquals((await user.get("/api/notifications")).body.messages, []);
      assertEquals((await admin.post("/api/notifications/read")).body, {});
      assertEquals((await admin.get("/api/user")).body.unread, 0);
      assertEquals((await admin.get("/api/notifications?limit=0")).status, 400);
    });

    await t.step("anonymous callers get 401", async () => {
      assertEquals((await a.client().get(base)).status, 401);
    });
  } finally {
    await a.close();
  }
});
