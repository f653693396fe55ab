/**
 * Suspending an account, in process against a real ngircd with the IRC listener on: what the
 * suspended user can no longer do (web sessions and their open tabs, logins, invite links, IRC
 * clients), their IRC connection leaving the server and coming back with the account, and the
 * rules (admins only, not oneself, never the last admin who can log in).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { EMAIL, setupBouncer } from "../support/bouncer.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import { EventSocket } from "../support/events.ts";
import { sha256Hex } from "../../lib/crypto.ts";

const BOB = "bob@example.com";
const PASSWORD = "correct horse battery";

/** What the listener says to a login as `username`: "" when it lets the client in. */
async function refusal(port: number, username: string, password: string): Promise<string> {
  const tried = await BouncerClient.tryAttach(port, username, password);
  tried.client.close();
  return tried.ok ? "" : tried.line.replace(/^ERROR :(Closing link: )?/, "");
}

Deno.test("suspension: an admin suspends an account and brings it back", async (t) => {
  const s = await setupBouncer();
  const asker = await RawIrcClient.connect(s.ngircd.port, "asker");
  const clients: BouncerClient[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    const admin = s.api;
    const invite = await admin.post(`/api/user/${BOB}/invite`);
    const params = new URL(invite.body.url).searchParams;
    const bob = s.app.client();
    const bobId = Number(
      (await bob.register(BOB, PASSWORD, { exp: params.get("exp")!, token: params.get("token")! }))
        .uid,
    );
    // An admin, so that the connection may reach the loopback server; and an admin suspended is
    // held to the same rules.
    assertEquals((await admin.post(`/api/user/${BOB}`, { roles: ["admin"] })).status, 200);
    const made = await bob.post("/api/connections", { url: `${s.ngircd.url}?nick=bobby` });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const cid = made.body.connection_id as string;
    await poll("bob's connection is on IRC", () => asker.online("bobby"));
    const attached = await BouncerClient.attach(s.port, `${BOB}/${cid}@phone`, PASSWORD);
    clients.push(attached);
    const server = await s.app.listen();
    stops.push(server.stop);
    const tab = await EventSocket.open(
      { base: `http://127.0.0.1:${server.port}`, cookieHeader: bob.cookieHeader },
    );
    stops.push(() => tab.close());

    await t.step("only an admin suspends, and never themselves", async () => {
      const self = await admin.post(`/api/user/${EMAIL}`, { suspended: true });
      assertEquals(self.status, 400, JSON.stringify(self.body));
      assertEquals(self.body.errors[0], {
        message: "You cannot suspend yourself.",
        path: "/body/suspended",
      });
      const notBoolean = await admin.post(`/api/user/${BOB}`, { suspended: "yes" });
      assertEquals(notBoolean.status, 400, JSON.stringify(notBoolean.body));
      assertEquals(notBoolean.body.errors[0].path, "/body/suspended");
      const demoted = await admin.post(`/api/user/${BOB}`, { roles: [] });
      assertEquals(demoted.status, 200);
      const byUser = await bob.post(`/api/user/${BOB}`, { suspended: false });
      assertEquals(byUser.status, 403, JSON.stringify(byUser.body));
      assertEquals((await admin.post(`/api/user/${BOB}`, { roles: ["admin"] })).status, 200);
    });

    await t.step("suspended: sessions, IRC clients and the connection end", async () => {
      const res = await admin.post(`/api/user/${BOB}`, { suspended: true });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.suspended, true);
      assertEquals((await bob.get("/api/user")).status, 401);
      // The open tab is told at once (the periodic check is every 30 s).
      assertEquals((await tab.closedWithin(5000))?.reason, "The session has ended.");
      // A session that slipped in as the suspension began (a login on another node checked just
      // before it) does not let its holder in either.
      const id = "a session opened in the same moment";
      await s.app.deps.store.sessions.create(await sha256Hex(id), bobId, Date.now() + 60_000);
      const late = await s.app.request("/api/user", { headers: { cookie: `parley=${id}` } });
      assertEquals(late.status, 401, JSON.stringify(late.body));
      const error = await attached.waitFor((l) => l.command === "ERROR");
      assert(error.params[0].includes("The account was suspended"), error.raw);
      await poll("bob's connection left IRC", async () => !(await asker.online("bobby")));
      // Not connected again at the next start.
      const wanted = await s.app.deps.store.connections.wanted();
      assert(!wanted.some((r) => r.userId === bobId), "a suspended user's connection is wanted");
      assert(wanted.length > 0, "the others' connections are wanted");
      const listed = await admin.get("/api/users");
      const row = listed.body.users.find((u: { email: string }) => u.email === BOB);
      assertEquals(row.suspended, true);
      // What the others have is untouched.
      const mine = listed.body.users.find((u: { email: string }) => u.email === EMAIL);
      assertEquals(mine.suspended, undefined);
    });

    await t.step("nobody logs in to a suspended account", async () => {
      const login = await s.app.client().post("/api/user/login", {
        email: BOB,
        password: PASSWORD,
      });
      assertEquals(login.status, 403, JSON.stringify(login.body));
      assertEquals(login.body.errors[0].message, "This account is suspended.");
      // A wrong password learns nothing of the account.
      const guess = await s.app.client().post("/api/user/login", {
        email: BOB,
        password: "not the password",
      });
      assertEquals(guess.status, 400, JSON.stringify(guess.body));
      assertEquals(guess.body.errors[0].message, "Invalid email or password.");
      // A reset link does not open it either, and leaves the password as it was.
      const reset = await admin.post(`/api/user/${BOB}/invite`);
      const p = new URL(reset.body.url).searchParams;
      const used = await s.app.client().post("/api/user/register", {
        email: BOB,
        password: "another long password",
        exp: p.get("exp"),
        token: p.get("token"),
      });
      assertEquals(used.status, 403, JSON.stringify(used.body));
      assertEquals(await refusal(s.port, `${BOB}/${cid}`, PASSWORD), "This account is suspended");
      assertEquals(
        await refusal(s.port, `${BOB}/${cid}`, "not the password"),
        "Invalid email or password",
      );
    });

    await t.step("the last admin who can log in cannot be suspended or demoted", async () => {
      // Bob is an admin, but suspended: the caller is the one admin left.
      const demote = await admin.post(`/api/user/${EMAIL}`, { roles: [] });
      assertEquals(demote.status, 400, JSON.stringify(demote.body));
      assertEquals(demote.body.errors[0].message, "The last admin cannot give up the admin role.");
    });

    await t.step("back: the connection returns and bob logs in", async () => {
      const res = await admin.post(`/api/user/${BOB}`, { suspended: false });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.suspended, undefined);
      await poll("bob's connection is back on IRC", () => asker.online("bobby"));
      await bob.login(BOB, PASSWORD);
      assertEquals((await bob.get("/api/user")).body.email, BOB);
      assertEquals(await refusal(s.port, `${BOB}/${cid}`, PASSWORD), "");
    });
  } finally {
    for (const stop of stops.reverse()) await stop();
    for (const c of clients) c.close();
    await asker.close();
    await s.close();
  }
});
