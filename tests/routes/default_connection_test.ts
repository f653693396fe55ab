// deno-lint-ignore-file no-explicit-any -- answers are read field by field
/**
 * The default connection an admin chose is vouched for: an ordinary user's copy of it connects even
 * where it is a loopback address, while their own connections to such addresses stay refused.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp } from "../support/app.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";

Deno.test("default connection: an admin's private choice works for ordinary users", async (t) => {
  const irc = await startIrcServer();
  const a = await startApp({
    PARLEY_NEW_USER_CONNECTION: "1",
    PARLEY_DEFAULT_CONNECTION: `irc://127.0.0.1:${irc.port}/%23lobby`,
  });
  try {
    const { admin, user } = await adminAndUser(a);
    const settled = (c: any) => c.state === "connected" || c.info?.reason;

    await t.step("the user's default connection connects to the loopback server", async () => {
      const conn = await poll("the default connection to settle", async () => {
        const res = await user.get("/api/connections");
        const c = res.body.connections?.[0];
        return c && settled(c) ? c : undefined;
      }, 30_000);
      assertEquals(conn.info.reason ?? "", "", "no refusal");
      assertEquals(conn.state, "connected");
    });

    await t.step("their own connection to another loopback port is still refused", async () => {
      const res = await user.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port + 1}?nick=other`,
        wanted_state: "disconnected",
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/url");
      assert(res.body.errors[0].message.includes("admin"), res.body.errors[0].message);
    });

    await t.step(
      "the user may save their default connection with its literal address",
      async () => {
        const conn = (await user.get("/api/connections")).body.connections[0];
        // A client sends the whole URL back on any edit (Convos's does): the same host and port.
        const res = await user.post(`/api/connection/${conn.connection_id}`, {
          url: `irc://127.0.0.1:${irc.port}?nick=${conn.info.nick}&realname=Jane`,
        });
        assertEquals(res.status, 200, JSON.stringify(res.body));
        assert(res.body.url.includes("realname=Jane"), res.body.url);
      },
    );

    await t.step("the refusal tells the user what to ask the admin", async () => {
      const conn = (await user.get("/api/connections")).body.connections[0];
      const res = await user.post(`/api/connection/${conn.connection_id}`, {
        url: `irc://127.0.0.2:${irc.port}?nick=${conn.info.nick}`,
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/url");
      assertEquals(
        res.body.errors[0].message,
        "127.0.0.2 is a loopback address: ask an admin to turn on 'Users may connect to private addresses' in the server settings.",
      );
    });

    await t.step("the admin's own default connection connects too", async () => {
      const conn = await poll("the admin's connection", async () => {
        const c = (await admin.get("/api/connections")).body.connections?.[0];
        return c && settled(c) ? c : undefined;
      }, 30_000);
      assertEquals(conn.state, "connected");
    });
  } finally {
    await a.close();
    await irc.close();
  }
});

Deno.test("default connection: the built-in one waits for the first admin's first run", async (t) => {
  // No PARLEY_DEFAULT_CONNECTION: the built-in network, which nobody has chosen yet.
  const a = await startApp({ PARLEY_NEW_USER_CONNECTION: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");

    await t.step("the first admin's is there, not connected and not connecting", async () => {
      const { connections } = (await admin.get("/api/connections")).body;
      assertEquals(connections.length, 1);
      assertEquals(new URL(connections[0].url).host, "irc.libera.chat:6697");
      assertEquals(connections[0].wanted_state, "disconnected");
      assertEquals(connections[0].state, "disconnected");
    });

    await t.step("once the first run is answered, new users' connect at once", async () => {
      const res = await admin.post("/api/settings", {
        default_connection: "irc://127.0.0.1:1/%23lobby?tls=0",
      });
      assertEquals(res.status, 200);
      const params = new URL((await admin.post("/api/user/kim@example.com/invite")).body.url)
        .searchParams;
      const kim = a.client();
      await kim.register("kim@example.com", "correct horse battery", {
        exp: params.get("exp")!,
        token: params.get("token")!,
      });
      const [own] = (await kim.get("/api/connections")).body.connections;
      assertEquals([new URL(own.url).host, own.wanted_state], ["127.0.0.1:1", "connected"]);
    });
  } finally {
    await a.close();
  }
});
