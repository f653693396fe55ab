/** TLS to the IRC server: verified by default, and `tls_verify=0` for a self-signed server. */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("ircs:// verifies certificates unless tls_verify=0", async () => {
  const irc = await startIrcServer({ tls: true });
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  try {
    const api = new ApiClient(server.url);
    await api.register("tls@example.com");
    const strict = await api.post("/api/connections", {
      url: `ircs://127.0.0.1:${irc.tlsPort}?nick=strict`,
    });
    assertEquals(strict.status, 200);
    const lax = await api.post("/api/connections", {
      url: `ircs://127.0.0.1:${irc.tlsPort}?nick=lax&tls_verify=0`,
    });
    assertEquals(lax.body.url, `irc://127.0.0.1:${irc.tlsPort}?nick=lax&tls_verify=0&tls=1`);
    const get = async (id: string) =>
      (await api.get("/api/connections")).body.connections.find((
        c: { connection_id: string },
      ) => c.connection_id === id);
    await poll(
      "the unverified one to connect",
      async () => (await get(lax.body.connection_id)).state === "connected",
    );
    // The self-signed certificate fails verification; that is retried, not a permanent refusal.
    const down = await poll("the verified one to fail", async () => {
      const c = await get(strict.body.connection_id);
      return c.state === "disconnected" && c.info.reason ? c : undefined;
    });
    assert(/certificate/i.test(down.info.reason), down.info.reason);
    await poll(
      "a retry to be scheduled",
      async () =>
        (await get(strict.body.connection_id)).info.retry_in_ms !== undefined ||
        (await get(strict.body.connection_id)).state !== "disconnected",
    );
    // TLS to a plain port (BOUNCER ADDNETWORK's default is TLS): the reason says what to change.
    const plain = await api.post("/api/connections", {
      url: `ircs://127.0.0.1:${irc.port}?nick=plain`,
    });
    const refused = await poll("the TLS one on a plain port to fail", async () => {
      const c = await get(plain.body.connection_id);
      return c.state === "disconnected" && c.info.reason ? c : undefined;
    });
    assert(refused.info.reason.includes("may not speak TLS"), refused.info.reason);
    assert(refused.info.reason.includes("tls=0"), refused.info.reason);
  } finally {
    await server.close();
    await irc.close();
  }
});
