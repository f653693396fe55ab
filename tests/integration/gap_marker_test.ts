// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * The gap marker, against a real ngircd and the real daemon: when the IRC server goes away and
 * comes back, and when Parley itself was stopped, each conversation keeps a `gap` line from when
 * to when, in its place in history and live, never unread.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

const GAP = /^Disconnected from (\S+) to (\S+): messages in between may be missing\.$/;

Deno.test("gap marker: the IRC server went away, then Parley itself was down", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const api = new ApiClient(server.url);
  await api.register("alice@example.com");
  let bob: RawIrcClient | undefined;
  let socket: EventSocket | undefined;
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#gap",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const history = async () =>
      ((await api.get("/api/connection/irc-localhost/conversation/%23gap/messages")).body
        .messages ?? []) as any[];
    const state = async () =>
      ((await api.get("/api/connections")).body.connections as any[])[0]?.state;
    await poll("alice in #gap", async () => (await history()).some((m) => m.type === "join"));
    assertEquals((await history()).filter((m) => m.type === "gap"), [], "a new connection");
    bob = await RawIrcClient.connect(irc.port, "bob");
    await bob.join("#gap");
    await bob.say("#gap", "before the outage");
    await poll("bob's line", async () => (await history()).some((m) => m.from === "bob"));

    socket = await EventSocket.open(api);
    await irc.stop();
    await poll("connection lost", async () => (await state()) !== "connected");
    await irc.start();
    const live = await socket.waitFor((e) => e.type === "gap" && e.conversation_id === "#gap");
    await poll("connected again", async () => (await state()) === "connected");
    const gaps = (await history()).filter((m) => m.type === "gap");
    assertEquals(gaps.length, 1, JSON.stringify(gaps));
    const [, from, to] = GAP.exec(gaps[0].message) ?? [];
    assert(from && to, gaps[0].message);
    assertEquals([live.from, live.to, live.message], [from, to, gaps[0].message]);
    const said = (await history()).find((m) => m.from === "bob");
    assert(from > said.ts, "the gap starts after the last line before it");
    assert(
      to > from && gaps[0].ts >= to,
      `it ends when the connection was back: ${JSON.stringify([from, to, gaps[0].ts])}`,
    );
    const conv = ((await api.get("/api/conversations")).body.conversations as any[])
      .find((c) => c.conversation_id === "#gap");
    assertEquals(conv.unread, 1, "bob's line only: a gap is never unread");

    // Parley itself stops: the next gap starts at the last line it stored before it went down.
    await socket.close();
    socket = undefined;
    const lastBefore = (await history()).at(-1).ts;
    await server.restart();
    await poll(
      "a second gap after the restart",
      async () => (await history()).filter((m) => m.type === "gap").length === 2,
      60_000,
    );
    const second = (await history()).filter((m) => m.type === "gap")[1];
    const [, from2, to2] = GAP.exec(second.message) ?? [];
    assert(from2 >= lastBefore && to2 > from2, `${lastBefore} <= ${from2} < ${to2}`);
  } finally {
    await socket?.close();
    await bob?.close().catch(() => {});
    await server.close();
    await irc.close();
  }
});
