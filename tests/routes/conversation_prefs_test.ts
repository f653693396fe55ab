// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * A conversation's notification level and draft: kept per conversation and per user, listed with
 * the conversations, validated at their JSON pointers, and nobody else's to read or change.
 */
import { assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { MAX_DRAFT } from "../../protocol/limits.ts";

Deno.test("conversation notification levels and drafts", async (t) => {
  const a = await startApp();
  try {
    const { admin, user } = await adminAndUser(a);
    const conn = (await admin.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=admin",
      wanted_state: "disconnected",
    })).body;
    const { store } = a.deps;
    const owner = (await store.users.byEmail("admin@example.com"))!;
    const record = (await store.connections.get(owner.id, conn.connection_id))!;
    const tea = await store.conversations.ensure(record.id, "#tea", "#Tea");
    await store.conversations.setJoined(tea.id, true);
    await store.conversations.ensure(record.id, "bob", "bob");
    const base = `/api/connection/${conn.connection_id}/conversation`;
    const listed = async () =>
      Object.fromEntries(
        (await admin.get("/api/conversations")).body.conversations.map((
          c: any,
        ) => [c.conversation_id, c.notify]),
      );

    await t.step("defaults: mentions in a channel, everything in private", async () => {
      assertEquals(await listed(), { "#tea": "mentions", bob: "all" });
    });

    await t.step("a chosen level is kept and listed", async () => {
      const res = await admin.post(`${base}/%23tea/notify`, { notify: "muted" });
      assertEquals(res.body, { notify: "muted" });
      await admin.post(`${base}/bob/notify`, { notify: "mentions" });
      assertEquals(await listed(), { "#tea": "muted", bob: "mentions" });
      await admin.post(`${base}/%23tea/notify`, { notify: "all" });
      assertEquals((await listed())["#tea"], "all");
    });

    await t.step("a draft is kept for any device, and cleared with an empty one", async () => {
      assertEquals((await admin.get(`${base}/%23tea/draft`)).body, { draft: "" });
      await admin.post(`${base}/%23tea/draft`, { draft: "half a li" });
      assertEquals((await admin.get(`${base}/%23tea/draft`)).body, { draft: "half a li" });
      assertEquals((await admin.get(`${base}/bob/draft`)).body, { draft: "" });
      await admin.post(`${base}/%23tea/draft`, { draft: "" });
      assertEquals((await admin.get(`${base}/%23tea/draft`)).body, { draft: "" });
    });

    await t.step("bad input is a 400 at its pointer", async () => {
      const level = await admin.post(`${base}/%23tea/notify`, { notify: "loud" });
      assertEquals(level.status, 400);
      assertEquals(level.body.errors[0].path, "/body/notify");
      const long = await admin.post(`${base}/%23tea/draft`, { draft: "x".repeat(MAX_DRAFT + 1) });
      assertEquals(long.status, 400);
      assertEquals(long.body.errors[0].path, "/body/draft");
      const missing = await admin.post(`${base}/%23tea/draft`, {});
      assertEquals(missing.body.errors[0].path, "/body/draft");
    });

    await t.step("a channel detached from IRC clients: kept, listed, and back", async () => {
      const detached = async () =>
        Object.fromEntries(
          (await admin.get("/api/conversations")).body.conversations.map((
            c: any,
          ) => [c.conversation_id, c.detached]),
        );
      assertEquals(await detached(), { "#tea": false, bob: false });
      const res = await admin.post(`${base}/%23tea/detached`, { detached: true });
      assertEquals(res.body, { detached: true });
      assertEquals(await detached(), { "#tea": true, bob: false });
      assertEquals((await store.conversations.get(record.id, "#tea"))?.detach.detached, true);
      await admin.post(`${base}/%23tea/detached`, { detached: false });
      assertEquals((await detached())["#tea"], false);
      const bad = await admin.post(`${base}/%23tea/detached`, { detached: "yes" });
      assertEquals(bad.status, 400);
      assertEquals(bad.body.errors[0].path, "/body/detached");
      assertEquals((await admin.post(`${base}/bob/detached`, { detached: true })).status, 404);
      assertEquals((await user.post(`${base}/%23tea/detached`, { detached: true })).status, 404);
    });

    await t.step("unknown conversations and other users' are 404", async () => {
      assertEquals((await admin.get(`${base}/%23nope/draft`)).status, 404);
      assertEquals((await admin.post(`${base}/%23nope/draft`, { draft: "a line" })).status, 404);
      // Clearing the draft of a conversation closed meanwhile: nothing to clear, done.
      const cleared = await admin.post(`${base}/%23nope/draft`, { draft: "" });
      assertEquals([cleared.status, cleared.body], [200, { draft: "" }]);
      assertEquals((await user.post(`${base}/%23tea/draft`, { draft: "" })).status, 404);
      assertEquals((await user.get(`${base}/%23tea/draft`)).status, 404);
      assertEquals((await user.post(`${base}/%23tea/notify`, { notify: "all" })).status, 404);
    });

    await t.step(
      "a connection never connected: its server conversation keeps a draft",
      async () => {
        const saved = await admin.post(`${base}//draft`, { draft: "/nick ad" });
        assertEquals([saved.status, saved.body], [200, { draft: "/nick ad" }]);
        assertEquals((await admin.get(`${base}//draft`)).body, { draft: "/nick ad" });
        assertEquals(Object.keys(await listed()).sort(), ["#tea", "bob"], "not listed");
        assertEquals((await user.post(`${base}//draft`, { draft: "" })).status, 404);
      },
    );
  } finally {
    await a.close();
  }
});
