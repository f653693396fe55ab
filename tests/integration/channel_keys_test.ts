// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Channel keys (+k) against a real ngircd: a channel joined with its key (from the web client's
 * `/join #chan key` through the API, and from an IRC client attached through the listener) is
 * joined again with it after Parley restarts; a key set by MODE is kept and used, `-k` forgets
 * it, a rejoin the server refuses is said in the channel and leaves it not joined; and the key is
 * in no API answer and no log line.
 */
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { freePort } from "../support/ports.ts";
import { startServer } from "../support/server.ts";

/** The API's answers that describe connections and conversations, as one text. */
async function described(api: ApiClient): Promise<string> {
  const connections = await api.get("/api/connections");
  const conversations = await api.get("/api/conversations");
  assertEquals([connections.status, conversations.status], [200, 200]);
  return JSON.stringify([connections.body, conversations.body]);
}

/** Waits until `nick` has left the server (its QUIT seen by `client` since line `from`). */
function quitSeen(client: RawIrcClient, nick: string, from: number) {
  return client.waitFor((l) =>
    l.command === "QUIT" && l.nick === nick && client.lines.indexOf(l) >= from
  );
}

Deno.test("channel keys: joined with a key, from the API and an IRC client, rejoined after a restart", async () => {
  const irc = await startIrcServer();
  const listen = freePort();
  const server = await startServer({
    env: { PARLEY_TEST_FAST_IRC: "1", PARLEY_IRC_LISTEN: `irc://127.0.0.1:${listen}` },
  });
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    await bob.join("#keyed");
    await bob.send("MODE #keyed +k sekrit-1");
    await bob.join("#lounge");
    await bob.send("MODE #lounge +k l0unge-2");
    await bob.waitFor((l) => l.command === "MODE" && l.params[0] === "#lounge");
    const api = new ApiClient(server.url);
    await api.register(EMAIL, PASSWORD);
    const made = await api.post("/api/connections", { url: `${irc.url}?nick=alice` });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const cid = made.body.connection_id;
    await poll("connected", async () => {
      const r = await api.get("/api/connections");
      return r.body.connections.find((c: any) => c.connection_id === cid)?.state === "connected";
    });

    // The web client's `/join #chan key`, through the API's command route.
    const sent = await api.post(`/api/connection/${cid}/conversation/%23keyed/messages`, {
      message: "/join #keyed sekrit-1",
    });
    assertEquals(sent.status, 200, JSON.stringify(sent.body));
    await bob.waitForMember("#keyed", "alice");
    // irssi's `/join #chan key`, from an IRC client attached through the listener.
    const client = await BouncerClient.attach(listen, `${EMAIL}/${cid}`, PASSWORD);
    await client.send("JOIN #lounge l0unge-2");
    await bob.waitForMember("#lounge", "alice");
    client.close();

    // Kept with the conversations (the daemon's store: SQLite in its data folder).
    const db = new DatabaseSync(`${server.home}/parley.db`, { readOnly: true });
    const keys = () =>
      Object.fromEntries(
        db.prepare("SELECT conversation_id, channel_key FROM conversations WHERE channel_key != ''")
          .all().map((r: any) => [r.conversation_id, r.channel_key]),
      );
    try {
      await poll("both keys kept", () => keys()["#lounge"] && keys()["#keyed"]);
      assertEquals(keys(), { "#keyed": "sekrit-1", "#lounge": "l0unge-2" });
    } finally {
      db.close();
    }
    const before = await described(api);
    for (const key of ["sekrit-1", "l0unge-2"]) assert(!before.includes(key), before);

    // Parley restarts: it reconnects and joins both channels again, with their keys.
    const from = bob.lines.length;
    await server.restart();
    await quitSeen(bob, "alice", from);
    await bob.waitForMember("#keyed", "alice");
    await bob.waitForMember("#lounge", "alice");
    const listed = await poll("both listed, joined", async () => {
      const r = await api.get("/api/conversations");
      const chans = r.body.conversations.filter((c: any) => c.conversation_id.startsWith("#"));
      return chans.length === 2 && chans.every((c: any) => c.frozen === "") ? chans : undefined;
    });
    assertEquals(listed.map((c: any) => c.conversation_id), ["#keyed", "#lounge"]);
    const after = await described(api);
    for (const key of ["sekrit-1", "l0unge-2"]) {
      assert(!after.includes(key), after);
      // The daemon logs at debug in tests: not even there.
      assert(!server.output().includes(key), `${key} logged`);
    }
  } finally {
    await bob.close();
    await server.close();
    await irc.close();
  }
});

Deno.test("channel keys: a connection URL's channel with its key is joined and kept", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    await bob.join("#urlkey");
    await bob.send("MODE #urlkey +k u-key-3");
    await bob.waitFor((l) => l.command === "MODE" && l.params[0] === "#urlkey");
    const api = new ApiClient(server.url);
    await api.register(EMAIL, PASSWORD);
    const made = await api.post("/api/connections", {
      url: `${irc.url}/%23urlkey%20u-key-3?nick=carol`,
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    await bob.waitForMember("#urlkey", "carol");
    const db = new DatabaseSync(`${server.home}/parley.db`, { readOnly: true });
    try {
      const row = db.prepare("SELECT channel_key FROM conversations WHERE conversation_id = ?")
        .get("#urlkey") as { channel_key: string } | undefined;
      assertEquals(row?.channel_key, "u-key-3");
    } finally {
      db.close();
    }
    // The URL as answers show it has the channel, not its key.
    const shown = await described(api);
    assertStringIncludes(shown, "%23urlkey");
    assert(!shown.includes("u-key-3"), shown);
  } finally {
    await bob.close();
    await server.close();
    await irc.close();
  }
});

Deno.test("channel keys: a key set by MODE is used, -k forgets it, a refused rejoin says so", async (t) => {
  const s = await setupBouncer();
  const { api, cid } = s;
  const { store } = s.app.deps;
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const events: any[] = [];
  const unsubscribe = s.app.deps.bus.subscribe(1, (ev) => void events.push(ev));
  const conversation = async () => {
    const record = (await store.connections.get(1, cid))!;
    return (await store.conversations.get(record.id, "#modek"))!;
  };
  /** Drops the connection and waits until bob saw it go; `meanwhile` runs while it is down. */
  const reconnect = async (meanwhile: () => Promise<void> = async () => {}) => {
    const from = bob.lines.length;
    const down = await api.post(`/api/connection/${cid}`, { wanted_state: "disconnected" });
    assertEquals(down.status, 200);
    await quitSeen(bob, "alice", from);
    await meanwhile();
    const up = await api.post(`/api/connection/${cid}`, { wanted_state: "connected" });
    assertEquals(up.status, 200);
  };
  const send = (message: string) =>
    api.post(`/api/connection/${cid}/conversation/%23modek/messages`, { message });
  try {
    await bob.join("#modek");
    assertEquals((await send("/join #modek")).status, 200);
    await bob.waitForMember("#modek", "alice");

    await t.step("a key set by MODE +k is kept, in no API answer, and rejoined with", async () => {
      await bob.send("MODE #modek +k m0de-key");
      await poll("the key kept", async () => (await conversation()).key === "m0de-key");
      const told = await described(api);
      assert(!told.includes("m0de-key"), told);
      assertStringIncludes(told, '"#modek"');
      await reconnect();
      // Without the key ngircd would refuse her (475).
      await bob.waitForMember("#modek", "alice");
      assertEquals((await conversation()).joined, true);
    });

    await t.step("MODE -k forgets the key", async () => {
      await bob.send("MODE #modek -k m0de-key");
      await poll("the key forgotten", async () => (await conversation()).key === "");
    });

    await t.step("a rejoin the server refuses is said in the channel, not joined", async () => {
      events.length = 0;
      await reconnect(async () => {
        await bob.send("MODE #modek +k n3w-key");
        await bob.waitFor((l) => l.command === "MODE" && l.params[2] === "n3w-key");
      });
      await poll("not joined", async () => !(await conversation()).joined);
      const frozen = await poll(
        "frozen, with the server's reason",
        () =>
          events.find((e) =>
            e.type === "frozen" && e.conversation_id === "#modek" &&
            !["", "Not connected."].includes(e.frozen)
          ),
      );
      assertStringIncludes(frozen.frozen, "key");
      // Not listed as joined: GET /api/conversations lists no channel the user is not in.
      const listed = await api.get("/api/conversations");
      assert(!listed.body.conversations.some((c: any) => c.conversation_id === "#modek"));
      const history = await api.get(`/api/connection/${cid}/conversation/%23modek/messages`);
      const said = history.body.messages.filter((m: any) => m.type === "error");
      assertEquals(said.length, 1, JSON.stringify(history.body.messages));
      assertStringIncludes(said[0].message, "Could not join #modek");
      assertStringIncludes(said[0].message, "/join #modek <key>");
    });

    await t.step("joining again with the key brings it back, and keeps the key", async () => {
      assertEquals((await send("/join #modek n3w-key")).status, 200);
      await bob.waitForMember("#modek", "alice");
      // Learned from the modes Parley asks after the join (RPL_CHANNELMODEIS).
      await poll("the new key kept", async () => (await conversation()).key === "n3w-key");
      const listed = await poll(
        "listed again",
        async () =>
          (await api.get("/api/conversations")).body.conversations.find((c: any) =>
            c.conversation_id === "#modek"
          ),
      );
      assertEquals(listed.frozen, "");
      assert(!JSON.stringify(listed).includes("n3w-key"));
    });
  } finally {
    unsubscribe();
    await bob.close();
    await s.close();
  }
});
