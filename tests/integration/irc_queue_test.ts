/** The per-host connect queue and connections created without connecting. */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("connects to one host are spaced out; waiting connections are queued", async () => {
  const irc = await startIrcServer();
  const server = await startServer({
    env: { PARLEY_TEST_FAST_IRC: "1", PARLEY_CONNECT_DELAY: "1" },
  });
  try {
    const api = new ApiClient(server.url);
    await api.register("queue@example.com");
    const first = await api.post("/api/connections", { url: `${irc.url}?nick=first` });
    assertEquals(first.status, 200);
    const second = await api.post("/api/connections", { url: `${irc.url}?nick=second` });
    assertEquals(second.body.state, "queued");
    // The second waits its turn in the host's queue while the first registers.
    await poll("the first connected", async () => {
      const list = (await api.get("/api/connections")).body.connections;
      return list[0].state === "connected" ? list : undefined;
    }).then((list) => assertEquals(list[1].state, "queued"));
    const idle = await api.post("/api/connections", {
      url: `${irc.url}?nick=idle`,
      wanted_state: "disconnected",
    });
    assertEquals(idle.body.state, "disconnected");
    assertEquals(idle.body.wanted_state, "disconnected");
    await poll("both connected", async () => {
      const list = (await api.get("/api/connections")).body.connections;
      return list.filter((c: { state: string }) => c.state === "connected").length === 2;
    });
    const list = (await api.get("/api/connections")).body.connections;
    assertEquals(
      list.map((c: { connection_id: string; state: string }) => [c.connection_id, c.state]),
      [["irc-localhost", "connected"], ["irc-localhost-2", "connected"], [
        "irc-localhost-3",
        "disconnected",
      ]],
    );
    // The wanted state survives a restart: the idle one stays down.
    await server.restart();
    await poll("reconnected", async () => {
      const l = (await api.get("/api/connections")).body.connections;
      return l.filter((c: { state: string }) => c.state === "connected").length === 2;
    });
    const after = (await api.get("/api/connections")).body.connections;
    assertEquals(after[2].state, "disconnected");
  } finally {
    await server.close();
    await irc.close();
  }
});
