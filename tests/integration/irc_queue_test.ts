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

/**
 * An IRC server that takes connections but holds each registration until told: `held` are the
 * nicks waiting for their welcome, `most` the most that ever waited at once.
 */
function holdingServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: { nick: string; conn: Deno.Conn }[] = [];
  const sockets: Deno.Conn[] = [];
  const state = { held, most: 0, welcomed: 0 };
  const encoder = new TextEncoder();
  (async () => {
    for await (const conn of listener) {
      sockets.push(conn);
      (async () => {
        let buf = "";
        let nick = "";
        for await (const chunk of conn.readable.pipeThrough(new TextDecoderStream())) {
          buf += chunk;
          for (let nl; (nl = buf.indexOf("\n")) >= 0;) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line.startsWith("CAP LS")) {
              await conn.write(encoder.encode(":hold.test CAP * LS :\r\n"));
            } else if (line.startsWith("NICK ")) nick = line.slice(5);
            else if (line.startsWith("USER ")) {
              held.push({ nick, conn });
              state.most = Math.max(state.most, held.length);
            }
          }
        }
      })().catch(() => {});
    }
  })().catch(() => {});
  return {
    url: `irc://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    state,
    /** Welcomes every held registration. */
    async welcome() {
      for (const { nick, conn } of held.splice(0)) {
        await conn.write(encoder.encode(`:hold.test 001 ${nick} :Welcome ${nick}\r\n`));
        state.welcomed++;
      }
    },
    close() {
      listener.close();
      for (const s of sockets) {
        try {
          s.close();
        } catch { /* closed by the client */ }
      }
    },
  };
}

Deno.test("at most PARLEY_CONNECT_CONCURRENCY connections register with one host at once", async () => {
  const irc = holdingServer();
  // No pace at all: only the bound holds them back.
  const server = await startServer({
    env: { PARLEY_CONNECT_DELAY: "0", PARLEY_CONNECT_CONCURRENCY: "2" },
  });
  try {
    const api = new ApiClient(server.url);
    await api.register("bound@example.com");
    for (let i = 0; i < 5; i++) {
      const made = await api.post("/api/connections", { url: `${irc.url}?nick=n${i}` });
      assertEquals(made.status, 200, JSON.stringify(made.body));
    }
    const states = async () =>
      ((await api.get("/api/connections")).body.connections as { state: string }[])
        .map((c) => c.state).sort().join(" ");
    await poll("two registering", () => irc.state.held.length === 2);
    assertEquals(await states(), "connecting connecting queued queued queued");
    // Registered: their turns go to the next two, then to the last.
    await irc.welcome();
    await poll("the next two registering", () => irc.state.held.length === 2);
    await irc.welcome();
    await poll("the last registering", () => irc.state.held.length === 1);
    await irc.welcome();
    await poll(
      "all connected",
      async () => (await states()) === Array(5).fill("connected").join(" "),
    );
    assertEquals([irc.state.most, irc.state.welcomed], [2, 5]);
  } finally {
    await server.close();
    irc.close();
  }
});
