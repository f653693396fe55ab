/**
 * A connection's stored server password goes only to the server it was given for: real IRC
 * servers on loopback record every PASS they receive while BOUNCER CHANGENETWORK and the API
 * move a connection to another port or turn TLS off.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { type HostileClient, startHostileIrc } from "../support/hostile_irc.ts";

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
