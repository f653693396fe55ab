/**
 * A conversation's `notifications` counts its unread mentions only: none read in the
 * conversation, none read on the notifications page (the web client's @ badge after a reload).
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { nowMicros } from "../../lib/time.ts";

Deno.test("conversations: notifications count the mentions neither read there nor listed as read", async () => {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  try {
    const api = a.client();
    await api.register("alice@example.com", "alice's long password");
    const made = await api.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=alice",
      wanted_state: "disconnected",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const { store } = a.deps;
    const userId = (await store.users.byEmail("alice@example.com"))!.id;
    const conn = (await store.connections.get(userId, "irc-localhost"))!;
    const quiet = await store.conversations.ensure(conn.id, "#quiet", "#quiet");
    const busy = await store.conversations.ensure(conn.id, "#busy", "#busy");
    // Joined: a channel left is not listed.
    for (const c of [quiet, busy]) await store.conversations.setJoined(c.id, true);
    let ts = nowMicros();
    const say = (conversation: number, text: string, highlight: boolean) =>
      store.messages.append({
        conversation,
        userId,
        from: "bob",
        type: "private",
        text,
        ts: ts += 1000,
        highlight,
      });
    const counts = async () => {
      const res = await api.get("/api/conversations");
      return Object.fromEntries(
        res.body.conversations.map((c: { name: string; notifications: number }) => [
          c.name,
          c.notifications,
        ]),
      );
    };

    await say(quiet.id, "alice: one", true);
    await say(quiet.id, "alice: two", true);
    await say(busy.id, "alice: three", true);
    assertEquals(await counts(), { "#busy": 1, "#quiet": 2 });

    // Read in the conversation: its mentions are read; a new one counts alone.
    const read = await api.post("/api/connection/irc-localhost/conversation/%23quiet/read");
    assertEquals(read.status, 200);
    ts = Math.max(ts, nowMicros());
    await say(quiet.id, "alice: four", true);
    await say(quiet.id, "no mention", false);
    assertEquals(await counts(), { "#busy": 1, "#quiet": 1 });

    // Read on the notifications page: every conversation's mentions are read.
    assertEquals((await api.post("/api/notifications/read")).status, 200);
    assertEquals(await counts(), { "#busy": 0, "#quiet": 0 });
    const user = await api.get("/api/user?conversations=true");
    assertEquals(
      user.body.conversations.map((c: { notifications: number }) => c.notifications),
      [0, 0],
    );
    await say(busy.id, "alice: five", true);
    assertEquals(await counts(), { "#busy": 1, "#quiet": 0 });
  } finally {
    await a.close();
  }
});
