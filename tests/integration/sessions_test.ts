// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/** The account page's sessions (list, sign out one) and the fresh-install hint, over the real app. */
import { assert, assertEquals, assertNotEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { EventSocket } from "../support/events.ts";

Deno.test("sessions: listed with their client, signed out one by one, by public id", async (t) => {
  const t0 = await startApp();
  const as = (cookie: string, method = "GET", path = "/api/user/sessions", ua?: string) =>
    t0.request(path, { method, headers: { cookie, ...(ua ? { "user-agent": ua } : {}) } });
  try {
    await t.step("a fresh install says so, and nothing else", async () => {
      const res = await t0.request("/api/install");
      assertEquals(res.status, 200);
      assertEquals(res.body, { first_user: true });
    });

    const desk = await t0.register("alice@example.com");
    const login = await t0.request("/api/user/login", {
      method: "POST",
      body: JSON.stringify({ email: "alice@example.com", password: "correct horse battery" }),
      headers: { "content-type": "application/json", "user-agent": "Phone/1.0" },
    }, "10.0.0.2");
    assertEquals(login.status, 200);
    const phone = login.headers.getSetCookie()[0].split(";")[0];

    await t.step("once someone registered, the install is no longer fresh", async () => {
      assertEquals((await t0.request("/api/install")).body, { first_user: false });
    });

    let phoneId = "";
    await t.step("both sessions are listed, this one marked, with client and times", async () => {
      const res = await as(desk, "GET", "/api/user/sessions", "Desk/2.0");
      assertEquals(res.status, 200);
      const list = res.body.sessions;
      assertEquals(list.length, 2);
      const mine = list.find((s: any) => s.current);
      const other = list.find((s: any) => !s.current);
      assertEquals(mine.user_agent, "Desk/2.0");
      assertEquals(other.user_agent, "Phone/1.0");
      assertEquals(other.address, "10.0.0.2");
      for (const s of list) {
        assert(!Number.isNaN(Date.parse(s.created)) && !Number.isNaN(Date.parse(s.last_used)));
      }
      // The public id is neither the secret nor any part of the stored hash.
      for (const cookie of [desk, phone]) {
        const secret = cookie.split("=")[1];
        const hash = await sha256Hex(secret);
        for (const s of list) {
          assertNotEquals(s.id, secret);
          assert(!hash.includes(s.id) && !secret.includes(s.id), "id unrelated to the secret");
        }
      }
      phoneId = other.id;
    });

    await t.step("bad and unknown ids are refused; others' sessions are not found", async () => {
      const bad = await as(desk, "DELETE", "/api/user/sessions/a%20b");
      assertEquals(bad.status, 400);
      assertEquals(bad.body.errors[0].path, "/params/id");
      assertEquals((await as(desk, "DELETE", "/api/user/sessions/nope")).status, 404);
      const bob = await t0.deps.store.users.create("bob@example.com", "x", []);
      await t0.deps.store.sessions.create("bob-session", bob.id, Date.now() + 60_000);
      const bobId = (await t0.deps.store.sessions.listForUser(bob.id, Date.now()))[0].publicId;
      assertEquals((await as(desk, "DELETE", `/api/user/sessions/${bobId}`)).status, 404);
      assertEquals((await t0.deps.store.sessions.listForUser(bob.id, Date.now())).length, 1);
      assertEquals((await t0.request("/api/user/sessions")).status, 401);
    });

    await t.step("signing out the phone ends its session only", async () => {
      const res = await as(desk, "DELETE", `/api/user/sessions/${phoneId}`);
      assertEquals(res.status, 200);
      assertEquals((await as(phone, "GET", "/api/user")).status, 401);
      assertEquals((await as(desk, "GET", "/api/user")).status, 200);
      assertEquals((await as(desk)).body.sessions.length, 1);
    });

    await t.step("a session signed out closes its open sockets at once, not others'", async () => {
      const tablet = (await t0.post("/api/user/login", {
        email: "alice@example.com",
        password: "correct horse battery",
      })).headers.getSetCookie()[0].split(";")[0];
      const server = await t0.listen();
      const base = `http://127.0.0.1:${server.port}`;
      const open = (cookieHeader: string) => EventSocket.open({ base, cookieHeader });
      const [onDesk, onTablet] = [await open(desk), await open(tablet)];
      try {
        const tabletId = (await as(desk)).body.sessions.find((s: any) => !s.current).id;
        assertEquals((await as(desk, "DELETE", `/api/user/sessions/${tabletId}`)).status, 200);
        // Well before the periodic check (every 30 s): told by the bus.
        assertEquals((await onTablet.closedWithin(5000))?.reason, "The session has ended.");
        assertEquals((await onDesk.request({ method: "ping" })).event, "pong");
      } finally {
        await onDesk.close();
        await onTablet.close();
        await server.stop();
      }
    });
  } finally {
    await t0.close();
  }
});
