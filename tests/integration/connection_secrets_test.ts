/**
 * A connection's stored server password goes only to the server it was given for: real IRC
 * servers on loopback record every PASS they receive while BOUNCER CHANGENETWORK and the API
 * move a connection to another port or turn TLS off.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { startBouncer } from "../../bouncer/mod.ts";
import { parseIrcUrl } from "../../irc/url.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { type HostileClient, startHostileIrc } from "../support/hostile_irc.ts";

/** adminAndUser's password for the user. */
const USER_PASSWORD = "correct horse battery";
const NETWORK_CAPS = ["soju.im/bouncer-networks", "batch"];

/** The PASS lines a server received. */
const passes = (c: HostileClient) => c.lines.filter((l) => /^PASS /i.test(l));

Deno.test("a stored server password follows only while host, port and TLS stay", async (t) => {
  const s = await setupBouncer();
  const home = startHostileIrc();
  const elsewhere = startHostileIrc();
  const plain = startHostileIrc();
  const manager = await BouncerClient.attach(s.port, EMAIL, PASSWORD, NETWORK_CAPS, "manager");
  /** Sends a BOUNCER command and waits for its answer (or FAIL). */
  const bouncer = async (line: string) => {
    const from = manager.lines.length;
    await manager.send(line);
    return await manager.waitFor(
      (l) => (l.command === "BOUNCER" && l.params[0] !== "NETWORK") || l.command === "FAIL",
      from,
    );
  };
  try {
    const made = await s.api.post("/api/connections", {
      url: `irc://:s3cret@127.0.0.1:${home.port}?nick=dora`,
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const cid = made.body.connection_id as string;

    await t.step("the password goes to its own server", async () => {
      const first = await home.registered();
      assertEquals(passes(first), ["PASS s3cret"]);
    });

    await t.step("CHANGENETWORK of the nick keeps it for the same server", async () => {
      const ok = await bouncer(`BOUNCER CHANGENETWORK ${cid} nickname=dora2`);
      assertEquals(ok.params.slice(0, 2), ["CHANGENETWORK", cid], ok.raw);
      const again = await home.registered();
      assertEquals(again.nick, "dora2");
      assertEquals(passes(again), ["PASS s3cret"]);
    });

    await t.step("CHANGENETWORK to another port: the new server gets no password", async () => {
      const ok = await bouncer(`BOUNCER CHANGENETWORK ${cid} port=${elsewhere.port}`);
      assertEquals(ok.params.slice(0, 2), ["CHANGENETWORK", cid], ok.raw);
      const moved = await elsewhere.registered();
      assertEquals(moved.nick, "dora2");
      assertEquals(passes(moved), []);
    });

    await t.step("moving back does not bring it back; a password sent again goes", async () => {
      await bouncer(`BOUNCER CHANGENETWORK ${cid} port=${home.port}`);
      assertEquals(passes(await home.registered()), []);
      await bouncer(`BOUNCER CHANGENETWORK ${cid} port=${elsewhere.port};pass=n3w`);
      assertEquals(passes(await elsewhere.registered()), ["PASS n3w"]);
    });

    await t.step("CHANGENETWORK tls=0: the password does not travel in the clear", async () => {
      // Stored for TLS on the plain server's port, held down until the change.
      const tls = await s.api.post("/api/connections", {
        url: `ircs://:t0psecret@127.0.0.1:${plain.port}?nick=erin&tls_verify=0`,
        wanted_state: "disconnected",
      });
      assertEquals(tls.status, 200, JSON.stringify(tls.body));
      const id = tls.body.connection_id as string;
      const ok = await bouncer(`BOUNCER CHANGENETWORK ${id} tls=0`);
      assertEquals(ok.params.slice(0, 2), ["CHANGENETWORK", id], ok.raw);
      const up = await s.api.post(`/api/connection/${id}`, { wanted_state: "connected" });
      assertEquals(up.status, 200, JSON.stringify(up.body));
      const reached = await plain.registered();
      assertEquals(reached.nick, "erin");
      assertEquals(passes(reached), []);
    });

    await t.step("the API: a new port without a password sends none", async () => {
      const moved = await s.api.post(`/api/connection/${cid}`, {
        url: `irc://:n3w@127.0.0.1:${home.port}?nick=dora2`,
      });
      assertEquals(moved.status, 200, JSON.stringify(moved.body));
      assertEquals(passes(await home.registered()), ["PASS n3w"]);
      // The URL as the API shows it, sent back with a nick changed: same server, password kept.
      const kept = await s.api.post(`/api/connection/${cid}`, {
        url: `irc://127.0.0.1:${home.port}?nick=dora3`,
      });
      assertEquals(kept.status, 200, JSON.stringify(kept.body));
      const same = await home.registered();
      assertEquals(same.nick, "dora3");
      assertEquals(passes(same), ["PASS n3w"]);
      const away = await s.api.post(`/api/connection/${cid}`, {
        url: `irc://127.0.0.1:${elsewhere.port}?nick=dora3`,
      });
      assertEquals(away.status, 200, JSON.stringify(away.body));
      const there = await elsewhere.registered();
      assertEquals(there.nick, "dora3");
      assertEquals(passes(there), []);
    });

    await t.step("CHANGENETWORK keeps SASL and the login; moved, it asks again", async () => {
      const made = await s.api.post("/api/connections", {
        url: `irc://acct:pw@127.0.0.1:${home.port}?nick=sam&sasl=plain&tls_verify=0`,
        wanted_state: "disconnected",
      });
      assertEquals(made.status, 200, JSON.stringify(made.body));
      const id = made.body.connection_id as string;
      const userId = (await s.app.deps.store.users.byEmail(EMAIL))!.id;
      const stored = async () =>
        parseIrcUrl((await s.app.deps.store.connections.get(userId, id))!.url);
      await bouncer(`BOUNCER CHANGENETWORK ${id} nickname=sam2`);
      const renamed = await stored();
      assertEquals(
        [renamed.nick, renamed.sasl, renamed.user, renamed.password, renamed.tlsVerify],
        ["sam2", "plain", "acct", "pw", false],
      );
      const fail = await bouncer(`BOUNCER CHANGENETWORK ${id} port=${elsewhere.port}`);
      assertEquals(fail.command, "FAIL", fail.raw);
      assert(fail.params.at(-1)!.startsWith("Enter the password again"), fail.raw);
      assertEquals((await stored()).port, home.port);
      const sent = await bouncer(`BOUNCER CHANGENETWORK ${id} port=${elsewhere.port};pass=pw2`);
      assertEquals(sent.params.slice(0, 2), ["CHANGENETWORK", id], sent.raw);
      const moved = await stored();
      assertEquals([moved.port, moved.sasl, moved.password], [elsewhere.port, "plain", "pw2"]);
    });

    await t.step("no server but its own ever saw a password", () => {
      for (const c of elsewhere.clients) {
        assert(passes(c).every((p) => p === "PASS n3w"), passes(c).join(" | "));
      }
      for (const c of plain.clients) assertEquals(passes(c), []);
    });
  } finally {
    manager.close();
    await s.close();
    await home.close();
    await elsewhere.close();
    await plain.close();
  }
});

Deno.test("the admin's default-connection password stays with the default server", async () => {
  const home = startHostileIrc();
  const evil = startHostileIrc();
  const app = await startApp({
    PARLEY_TEST_FAST_IRC: "1",
    PARLEY_NEW_USER_CONNECTION: "1",
    PARLEY_DEFAULT_CONNECTION: `irc://:adminpw@127.0.0.1:${home.port}`,
    // The user's own server is on loopback here; on the internet it needs no switch.
    PARLEY_IRC_ALLOW_PRIVATE: "1",
  });
  const bouncer = startBouncer(app.deps, {
    addresses: [{ tls: false, hostname: "127.0.0.1", port: 0 }],
  });
  let userIrc: BouncerClient | undefined;
  try {
    // An ordinary user, invited by the admin; each gets the default connection, password and all.
    const { user: api } = await adminAndUser(app);
    assertEquals(passes(await home.registered()), ["PASS adminpw"]);
    assertEquals(passes(await home.registered()), ["PASS adminpw"]);
    const listed = await api.get("/api/connections");
    const cid = listed.body.connections[0].connection_id as string;
    assert(!JSON.stringify(listed.body).includes("adminpw"), "the API never shows it");

    userIrc = await BouncerClient.attach(
      bouncer.ports[0],
      "user@example.com",
      USER_PASSWORD,
      NETWORK_CAPS,
    );
    const from = userIrc.lines.length;
    await userIrc.send(`BOUNCER CHANGENETWORK ${cid} port=${evil.port}`);
    const ok = await userIrc.waitFor((l) => l.command === "BOUNCER" || l.command === "FAIL", from);
    assertEquals(ok.params.slice(0, 2), ["CHANGENETWORK", cid], ok.raw);
    const reached = await evil.registered();
    assertEquals(passes(reached), []);
  } finally {
    userIrc?.close();
    await bouncer.close();
    await app.close();
    await home.close();
    await evil.close();
  }
});
