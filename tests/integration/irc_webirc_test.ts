/**
 * WEBIRC: a connection profile with a password makes Parley a gateway for that network. Its
 * connections tell the server, before anything else, the address the user last used the web
 * client from (here behind a reverse proxy, so from X-Forwarded-For), as Convos does; a profile
 * without one sends nothing of it. A real daemon and a small IRC server on loopback.
 */
import { assertEquals } from "../support/assert.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { startServer } from "../support/server.ts";
import { ApiClient } from "../support/api.ts";

Deno.test("WEBIRC: sent first with the user's address when the host's profile has a password", async () => {
  const server = await startServer({
    env: { PARLEY_TEST_FAST_IRC: "1", PARLEY_REVERSE_PROXY: "1" },
  });
  const irc = startHostileIrc();
  // A documentation address (RFC 5737): no name resolves back from it.
  const from = { "x-forwarded-for": "192.0.2.7" };
  const api = new ApiClient(server.url);
  try {
    await api.register("gw@example.com");
    const connect = async (nick: string) => {
      const made = await api.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=${nick}`,
      }, from);
      assertEquals(made.status, 200);
      return (await irc.registered()).lines;
    };
    const profile = (webirc_password: string | null) =>
      api.post("/api/connection-profiles", {
        url: `irc://127.0.0.1:${irc.port}`,
        webirc_password,
      }, from);

    assertEquals((await connect("plain"))[0], "CAP LS 302", "no profile, no WEBIRC");

    assertEquals((await profile("s3cret!")).status, 200);
    const lines = await connect("gated");
    assertEquals(lines.slice(0, 2), ["WEBIRC s3cret! parley 192.0.2.7 192.0.2.7", "CAP LS 302"]);

    // A password no line can carry is refused at its field, and the stored one stays.
    for (const bad of ["two words", ":colon", "tab\there"]) {
      const res = await profile(bad);
      assertEquals([res.status, res.body.errors?.[0]?.path], [400, "/body/webirc_password"], bad);
    }
    assertEquals((await connect("still"))[0], "WEBIRC s3cret! parley 192.0.2.7 192.0.2.7");

    // Cleared: nothing of it again.
    assertEquals((await profile(null)).status, 200);
    assertEquals((await connect("cleared"))[0], "CAP LS 302");
  } finally {
    await server.close();
    await irc.close();
  }
});
