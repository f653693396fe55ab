// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * IRC parity with what users of Convos expect, against a real ngircd: a connection's info follows
 * its server, member lists answer at once and are rebuilt after a rejoin, URLs as Convos reads them.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";

Deno.test("connection info: a new server that fails does not keep the old one's nick and server", async () => {
  const irc = await startIrcServer();
  const a = await startApp({ PARLEY_TEST_FAST_IRC: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const made = await admin.post("/api/connections", { url: `${irc.url}?nick=oldnick` });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const id = made.body.connection_id;
    const info = async () =>
      (await admin.get("/api/connections")).body.connections.find((c: any) =>
        c.connection_id === id
      ).info;
    const up = await poll("connected", async () => (await info()).server ? await info() : 0);
    assertEquals([up.nick, up.server], ["oldnick", "irc.parley.test"]);

    // Nothing listens on the new port: the connect fails.
    const res = await admin.post(`/api/connection/${id}`, {
      url: `irc://127.0.0.1:${freePort()}?nick=newnick`,
    });
    assertEquals(res.status, 424, JSON.stringify(res.body));
    const now = await info();
    assert(now.reason, JSON.stringify(now));
    assertEquals(now.server, undefined, JSON.stringify(now));
    assertEquals(now.network, undefined, JSON.stringify(now));
    assertEquals(now.nick, "newnick", "the new URL's nick, not the old server's");
  } finally {
    await a.close();
    await irc.close();
  }
});
