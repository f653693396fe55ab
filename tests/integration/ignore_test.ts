// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Ignoring people, end to end against a real ngircd: after `/ignore troll` (or a mask by ident),
 * what troll says in a channel or privately is not shown live, not in history (what troll said
 * before is hidden too), not unread, never a notification, and opens no private conversation;
 * everyone else still gets through. `/unignore` brings new lines back.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("ignore: an ignored person's lines are not shown, kept, counted or notified", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const api = new ApiClient(server.url);
  await api.register("alice@example.com");
  const clients: RawIrcClient[] = [];
  let socket: EventSocket | undefined;
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#room",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const base = "/api/connection/irc-localhost/conversation";
    const history = async (conv = "%23room") =>
      ((await api.get(`${base}/${conv}/messages`)).body.messages ?? []) as any[];
    await poll("alice in #room", async () => (await history()).some((m) => m.type === "join"));
    for (const nick of ["bob", "troll", "imp"]) {
      const c = await RawIrcClient.connect(irc.port, nick);
      clients.push(c);
      await c.join("#room");
    }
    const [bob, troll, imp] = clients;
    await bob.waitForMember("#room", "alice");
    const send = (message: string) => api.post(`${base}/%23room/messages`, { message });
    const said = (text: string) => async () => (await history()).some((m) => m.message === text);

    await troll.say("#room", "said before the ignore");
    await poll("troll's first line stored", said("said before the ignore"));

    const ignored = await send("/ignore troll");
    assertEquals(ignored.status, 200, JSON.stringify(ignored.body));
    assertEquals(ignored.body.ignored, "troll!*@*");
    // A mask by ident: imp's prefix is imp!~imp@127.0.0.1 on ngircd.
    assertEquals((await send("/ignore *!~imp@*")).body.ignores, ["troll!*@*", "*!~imp@*"]);
    assertEquals((await send("/ignore")).body.ignores, ["troll!*@*", "*!~imp@*"]);
    const self = await send("/ignore alice");
    assertEquals(self.status, 400);
    assertEquals(self.body.errors[0].message, "You cannot ignore yourself.");

    socket = await EventSocket.open(api);
    await api.post(`${base}/%23room/read`, {});
    // The ignored lines go first; bob's last line, once seen, means theirs were handled before
    // (one connection's lines are handled in order).
    await troll.say("#room", "alice: troll mentions you");
    await troll.say("alice", "troll in private");
    await troll.send("NOTICE #room :a notice from troll");
    await imp.say("#room", "alice: imp mentions you");
    // Once ngircd answered their PINGs it has relayed their lines, before bob's.
    for (const c of [troll, imp]) {
      await c.send("PING :relayed");
      await c.waitFor((l) => l.command === "PONG" && l.params.includes("relayed"));
    }
    await bob.say("#room", "alice: bob mentions you");
    await socket.waitFor((e) => e.event === "message" && e.message === "alice: bob mentions you");

    const texts = (await history()).map((m) => m.message);
    assert(texts.includes("alice: bob mentions you"), "bob still gets through");
    for (
      const t of ["troll mentions", "a notice from troll", "imp mentions", "before the ignore"]
    ) {
      assert(!texts.some((x) => x.includes(t)), `"${t}" is not in history: ${texts.join(" | ")}`);
    }
    const live = socket.events.filter((e) => e.event === "message" || e.event === "notification");
    assert(
      !live.some((e) => /troll|imp/.test(e.from)),
      `nothing of troll or imp live: ${JSON.stringify(live)}`,
    );
    const conversations = (await api.get("/api/conversations")).body.conversations as any[];
    assert(!conversations.some((c) => c.conversation_id === "troll"), "no private conversation");
    const room = conversations.find((c) => c.conversation_id === "#room");
    assertEquals(room.unread, 1, "only bob's line is unread");
    assertEquals(room.notifications, 1);
    const notes = (await api.get("/api/notifications")).body.messages as any[];
    assertEquals(notes.map((n) => n.from), ["bob"]);

    // Unignored: troll's new lines come back; what was said meanwhile stays unkept.
    const back = await send("/unignore troll");
    assertEquals(back.body.ignores, ["*!~imp@*"]);
    await troll.say("#room", "troll is back");
    await poll("troll's line after /unignore", said("troll is back"));
    assert((await history()).some((m) => m.message === "said before the ignore"));
    const missing = await send("/unignore troll");
    assertEquals(missing.status, 400);
    assertEquals(missing.body.errors[0].message, "troll!*@* is not on your ignore list.");
  } finally {
    await socket?.close();
    for (const c of clients) await c.close().catch(() => {});
    await server.close();
    await irc.close();
  }
});
