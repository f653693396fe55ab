/**
 * Real answers against the API document: one account's day through the API, in process, where
 * every answer is checked against its operation's response schema (tests/support/app.ts does the
 * check; a field a route returns and the document lacks fails it). The test then asks that each
 * operation was answered with success at least once, so a new operation needs a call here.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { match, operations } from "../support/openapi.ts";

/** Operations this walk does not reach, and why (their answers have no schema to check). */
const NOT_WALKED: Record<string, string> = {
  embed: "needs a page to fetch; its answer is documented without a schema",
  embedImage: "needs an image to fetch; its answer is an image, not JSON",
  webhook: "needs a configured bot; its answer is a free-form object",
  sendMessage: "needs a live IRC connection; its answer is a free-form object",
};

const T0 = Date.UTC(2026, 0, 1) * 1000;

Deno.test("every operation's answer matches its documented response schema", async () => {
  const a = await startApp();
  const answered = new Set<string>();
  const observe = (req: Request, res: Response) => {
    const found = match(req.method, req.url);
    if (found && res.status < 400) answered.add(found.op.operationId);
  };
  try {
    const admin = a.client({ observe });
    const ok = async (p: Promise<{ status: number; body: unknown }>, status = 200) => {
      const res = await p;
      assertEquals(res.status, status, JSON.stringify(res.body));
      // deno-lint-ignore no-explicit-any -- answers are read field by field
      return res.body as any;
    };

    await ok(admin.get("/api/install"));
    await ok(admin.post("/api/user/register", {
      email: "admin@example.com",
      password: "correct horse battery",
    }));
    await ok(admin.post("/api/user/login", {
      email: "admin@example.com",
      password: "correct horse battery",
    }));
    await ok(
      admin.post("/api/settings", { organization_name: "Example", irc_allow_private: true }),
    );
    await ok(admin.get("/api/settings"));
    await ok(admin.get("/api/check-for-updates"));
    await ok(admin.get("/api/i18n/en"));

    // A second user through an invite; the admin changes their keywords.
    const invite = await ok(admin.post("/api/user/bob@example.com/invite"));
    const params = new URL(invite.url).searchParams;
    const bob = a.client({ observe });
    await ok(bob.post("/api/user/register", {
      email: "bob@example.com",
      password: "correct horse battery",
      exp: params.get("exp"),
      token: params.get("token"),
    }));
    await ok(admin.post("/api/user/bob@example.com", { highlight_keywords: ["deploy"] }));
    await ok(admin.get("/api/users"));

    await ok(admin.post("/api/connection-profiles", {
      url: "irc://irc.example.org:6697",
      webirc_password: "secret",
      skip_queue: true,
    }));
    await ok(admin.get("/api/connection-profiles"));
    await ok(admin.delete("/api/connection-profiles/irc-example"));

    // A connection that stays disconnected, with history written as the IRC side writes it.
    const conn = await ok(admin.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=admin",
      wanted_state: "disconnected",
    }));
    await ok(admin.post(`/api/connection/${conn.connection_id}`, {
      on_connect_commands: ["/msg nickserv identify x"],
    }));
    const { store } = a.deps;
    const user = (await store.users.byEmail("admin@example.com"))!;
    const record = (await store.connections.get(user.id, conn.connection_id))!;
    const chan = await store.conversations.ensure(record.id, "#test", "#Test");
    await store.conversations.setTopic(chan.id, "All about tests");
    await store.conversations.setJoined(chan.id, true);
    const serverConv = await store.conversations.ensure(record.id, "", "");
    for (let i = 0; i < 5; i++) {
      store.messages.append({
        conversation: chan.id,
        userId: user.id,
        from: "alice",
        type: i === 2 ? "action" : "private",
        text: i === 3 ? "admin: the deploy is done" : `line ${i}`,
        ts: T0 + i * 1_000_000,
        highlight: i === 3,
        unread: true,
      });
    }
    store.messages.append({
      conversation: serverConv.id,
      userId: user.id,
      from: "irc.test",
      type: "notice",
      text: "welcome",
    });
    await store.messages.flush();
    await a.searchable();

    const me = await ok(admin.get("/api/user?connections=true&conversations=true"));
    assertEquals(me.conversations.length, 1);
    await ok(admin.get("/api/connections"));
    await ok(admin.get("/api/conversations"));
    const base = `/api/connection/${conn.connection_id}`;
    const history = await ok(admin.get(`${base}/conversation/%23test/messages?limit=2`));
    assert(history.before, "an older page exists");
    await ok(admin.get(`${base}/messages`));
    await ok(admin.post(`${base}/conversation/%23test/read`));
    await ok(admin.post(`${base}/read`));
    await ok(admin.post(`${base}/conversation/%23test/notify`, { notify: "muted" }));
    await ok(admin.post(`${base}/conversation/%23test/draft`, { draft: "half a" }));
    await ok(admin.get(`${base}/conversation/%23test/draft`));
    await ok(admin.post(`${base}/conversation/%23test/detached`, { detached: true }));
    await ok(admin.post("/api/client-settings", { compact: true, pinned: [] }));
    await ok(admin.get("/api/client-settings"));
    const found = await ok(admin.get("/api/search?match=deploy"));
    assertEquals(found.messages.length, 1);
    const notes = await ok(admin.get("/api/notifications"));
    assertEquals(notes.messages.length, 1);
    await ok(admin.post("/api/notifications/read"));
    // Sending needs a live connection: the answer is the documented error body.
    const send = await admin.post(`${base}/conversation/%23test/messages`, { message: "hi" });
    assertEquals(send.status, 400);

    // Files: upload, list, download, delete.
    const form = new FormData();
    form.append("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
    const up = await ok(admin.post("/api/files", form));
    await ok(admin.get("/api/files"));
    const file = up.files[0];
    await ok(admin.get(`/api/files/${file.uid}/${file.id}`));
    await ok(admin.delete(`/api/files/${file.uid}/${file.id}`));

    // Push and sessions (Parley's own operations).
    await ok(admin.get("/api/push"));
    await ok(admin.post("/api/push/settings", { auto_away: true }));
    const subscription = {
      // A literal public address: the endpoint check needs no DNS.
      endpoint: "https://8.8.8.8/send/1",
      keys: { p256dh: "B".repeat(87), auth: "A".repeat(22) },
    };
    await ok(admin.post("/api/push/subscriptions", subscription), 201);
    await ok(
      admin.request("DELETE", "/api/push/subscriptions", { endpoint: subscription.endpoint }),
    );
    // The ignore list (Parley's own).
    await ok(admin.post("/api/ignores", { mask: "troll" }), 201);
    await ok(admin.get("/api/ignores"));
    await ok(admin.request("DELETE", "/api/ignores", { mask: "troll" }));
    const second = a.client({ observe });
    await ok(second.post("/api/user/login", {
      email: "admin@example.com",
      password: "correct horse battery",
    }));
    const sessions = await ok(admin.get("/api/user/sessions"));
    const other = sessions.sessions.find((s: { current: boolean }) => !s.current);
    await ok(admin.delete(`/api/user/sessions/${other.id}`));
    const token = await ok(admin.post("/api/tokens", { name: "irssi" }), 201);
    await ok(admin.get("/api/tokens"));
    await ok(admin.delete(`/api/tokens/${token.id}`));
    const fp = "ab".repeat(32);
    await ok(admin.post("/api/certfps", { fingerprint: fp }), 201);
    await ok(admin.get("/api/certfps"));
    await ok(admin.delete(`/api/certfps/${fp}`));
    await ok(admin.post("/api/bouncerserv", { command: "help" }));

    await ok(admin.delete(`/api/connection/${conn.connection_id}`));
    await ok(admin.delete("/api/user/bob@example.com"));
    const { csrf } = await ok(admin.get("/api/user"));
    await ok(admin.get(`/api/user/logout?csrf=${encodeURIComponent(csrf)}`), 302);

    const missing = operations().map((o) => o.operationId)
      .filter((id) => !answered.has(id) && !(id in NOT_WALKED));
    assertEquals(missing, []);
  } finally {
    await a.close();
  }
});
