/** The per-host connect queue and connections created without connecting. */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";
import { startApp } from "../support/app.ts";
import { ManualClock } from "../support/manual_clock.ts";

const HOUR = 3_600_000;

Deno.test("connects to one host are spaced out; waiting connections are queued", async () => {
  const irc = await startIrcServer();
  // The pace is the manager's clock, moved here by hand: the second connection's turn comes when
  // the test says, however slowly a loaded machine registers the first. An hour apart, so that
  // real time never gives it.
  const clock = new ManualClock();
  const t = await startApp(
    { PARLEY_TEST_FAST_IRC: "1", PARLEY_CONNECT_DELAY: "3600" },
    undefined,
    clock,
  );
  try {
    const api = t.client();
    await api.register("queue@example.com");
    const first = await api.post("/api/connections", { url: `${irc.url}?nick=first` });
    assertEquals(first.status, 200);
    const second = await api.post("/api/connections", { url: `${irc.url}?nick=second` });
    assertEquals(second.body.state, "queued");
    const states = async () =>
      ((await api.get("/api/connections")).body.connections as { state: string }[])
        .map((c) => c.state);
    // The second waits its turn in the host's queue while the first registers, and after.
    await poll("the first connected", async () => (await states())[0] === "connected");
    assertEquals(await states(), ["connected", "queued"]);
    const idle = await api.post("/api/connections", {
      url: `${irc.url}?nick=idle`,
      wanted_state: "disconnected",
    });
    assertEquals(idle.body.state, "disconnected");
    assertEquals(idle.body.wanted_state, "disconnected");
    // Just short of the shortest gap (a quarter under the delay) it still waits.
    clock.advance(0.75 * HOUR - 1);
    assertEquals((await states())[1], "queued");
    // Past the longest (a quarter over), its turn has come.
    clock.advance(0.5 * HOUR + 2);
    await poll("both connected", async () => (await states())[1] === "connected");
    const list = (await api.get("/api/connections")).body.connections;
    assertEquals(
      list.map((c: { connection_id: string; state: string }) => [c.connection_id, c.state]),
      [["irc-localhost", "connected"], ["irc-localhost-2", "connected"], [
        "irc-localhost-3",
        "disconnected",
      ]],
    );
  } finally {
    await t.close();
    await irc.close();
  }
});

Deno.test("a host whose profile skips the queue connects every connection at once", async () => {
  const irc = await startIrcServer();
  // The same hour apart, the clock never moved: only skip_queue can connect the second.
  const t = await startApp(
    { PARLEY_TEST_FAST_IRC: "1", PARLEY_CONNECT_DELAY: "3600" },
    undefined,
    new ManualClock(),
  );
  try {
    const api = t.client();
    await api.register("skip@example.com"); // the first user: an admin
    const saved = await api.post("/api/connection-profiles", { url: irc.url, skip_queue: true });
    assertEquals(saved.body.skip_queue, true);
    for (const nick of ["first", "second", "third"]) {
      assertEquals(
        (await api.post("/api/connections", { url: `${irc.url}?nick=${nick}` })).status,
        200,
      );
    }
    const states = async () =>
      ((await api.get("/api/connections")).body.connections as { state: string }[])
        .map((c) => c.state);
    await poll("all three connected", async () => (await states()).every((s) => s === "connected"));

    // Turned off, a new connection waits its turn again.
    await api.post("/api/connection-profiles", { url: irc.url, skip_queue: false });
    const fourth = await api.post("/api/connections", { url: `${irc.url}?nick=fourth` });
    assertEquals(fourth.body.state, "queued");
    await new Promise((r) => setTimeout(r, 300)); // a profile read's time, not a turn's
    assertEquals((await states())[3], "queued");
  } finally {
    await t.close();
    await irc.close();
  }
});

Deno.test("the wanted state survives a restart: a connection made idle stays down", async () => {
  const irc = await startIrcServer();
  const server = await startServer({
    env: { PARLEY_TEST_FAST_IRC: "1", PARLEY_CONNECT_DELAY: "0" },
  });
  try {
    const api = new ApiClient(server.url);
    await api.register("restart@example.com");
    const up = await api.post("/api/connections", { url: `${irc.url}?nick=up` });
    assertEquals(up.status, 200);
    const idle = await api.post("/api/connections", {
      url: `${irc.url}?nick=idle`,
      wanted_state: "disconnected",
    });
    assertEquals(idle.body.state, "disconnected");
    await server.restart();
    await poll("reconnected", async () => {
      const l = (await api.get("/api/connections")).body.connections;
      return l[0].state === "connected";
    });
    const after = (await api.get("/api/connections")).body.connections;
    assertEquals(after.map((c: { state: string }) => c.state), ["connected", "disconnected"]);
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
