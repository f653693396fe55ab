/**
 * A server's PING is answered with its token, bare, with tags or with the
 * server's name as its source: a server drops a client that does not answer (ircd-hybrid after
 * 240 s, Libera after a few minutes), so an unanswered PING is every connection lost and
 * reconnected, over and over. A real daemon against a small scripted server on loopback.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { startServer } from "../support/server.ts";

Deno.test("IRC: the server's PING is answered, bare, with a source and with tags", async () => {
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const irc = startHostileIrc();
  try {
    const api = new ApiClient(server.url);
    await api.register("ping@example.com");
    const made = await api.post("/api/connections", { url: `${irc.url}?nick=pinged` });
    assertEquals(made.status, 200);
    const client = await irc.registered();
    const pong = (token: string) =>
      client.waitFor((l) => l === `PONG ${token}` || l === `PONG :${token}`);
    await client.send("PING :bare-1");
    await pong("bare-1");
    await client.send(":irc.hostile.test PING :sourced-2");
    await pong("sourced-2");
    await client.send("@time=2026-01-01T00:00:00.000Z :irc.hostile.test PING :tagged-3");
    await pong("tagged-3");
    // Still one connection: nothing was dropped or made again.
    assertEquals(irc.clients.length, 1);
  } finally {
    await server.close();
    await irc.close();
  }
});
