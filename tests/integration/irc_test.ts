// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * The IRC engine end to end: the real daemon, a real ngircd, and a raw IRC client as the other
 * person. One server and one IRC server for the whole file; the steps build on each other.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { adminAndUser, ApiClient } from "../support/api.ts";
import { EventSocket } from "../support/events.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";
import { parseMicros } from "../../protocol/time.ts";

const FAST = { PARLEY_TEST_FAST_IRC: "1" };

async function connection(api: ApiClient, id: string): Promise<any> {
  const res = await api.get("/api/connections");
  return res.body.connections.find((c: any) => c.connection_id === id);
}

function waitState(api: ApiClient, id: string, state: string) {
  return poll(`${id} to be ${state}`, async () => (await connection(api, id))?.state === state);
}

async function conversations(api: ApiClient): Promise<Record<string, any>> {
  const res = await api.get("/api/conversations");
  assertEquals(res.status, 200);
  return Object.fromEntries(res.body.conversations.map((c: any) => [c.conversation_id, c]));
}

Deno.test("IRC: connect, receive, notify, send, reconnect, restart, isolate, remove", async (t) => {
  const irc = await startIrcServer();
  const server = await startServer({ env: FAST });
  const { admin, user } = await adminAndUser(server.url);
  let bob = await RawIrcClient.connect(irc.port, "bob");
  let socket: EventSocket | undefined;
  const id = "irc-localhost";
  try {
    await bob.join("#test");

    await t.step("bad URLs are refused at /body/url", async () => {
      for (const url of ["http://example.com", "irc://", "not a url", "irc://host?nick=-bad"]) {
        const res = await user.post("/api/connections", { url });
        assertEquals(res.status, 400, url);
        assertEquals(res.body.errors[0].path, "/body/url", url);
      }
      const res = await user.post("/api/connections", {});
      assertEquals(res.body.errors[0].path, "/body/url");
      const conv = await user.post("/api/connections", {
        url: "irc://127.0.0.1:1?nick=x",
        conversation_id: "#a b",
      });
      assertEquals(conv.body.errors[0].path, "/body/conversation_id");
    });

    await t.step("a new connection joins #test and reaches connected", async () => {
      const res = await user.post("/api/connections", {
        url: `irc://alice@127.0.0.1:${irc.port}?nick=alice`,
        conversation_id: "#Test",
      });
      assertEquals(res.status, 200, JSON.stringify(res.body));
      assertEquals(res.body.connection_id, id);
      assertEquals(res.body.url, `irc://alice:@127.0.0.1:${irc.port}?nick=alice`);
      assertEquals(res.body.wanted_state, "connected");
      await waitState(user, id, "connected");
      const c = await connection(user, id);
      assertEquals(c.info.nick, "alice");
      assertEquals(c.on_connect_commands, []);
      await bob.waitFor((l) => l.command === "JOIN" && l.nick === "alice");
    });

    await t.step("a refused password leaves the connection down with the reason", async () => {
      const res = await user.post("/api/connections", {
        url: `irc://carol:secret-pw@127.0.0.1:${irc.port}?nick=carol`,
      });
      assertEquals(res.status, 200);
      assertEquals(res.body.connection_id, "irc-localhost-2");
      assertEquals(res.body.url, `irc://carol:@127.0.0.1:${irc.port}?nick=carol`);
      const down = await poll("the refusal", async () => {
        const c = await connection(user, "irc-localhost-2");
        return c.state === "disconnected" && c.info.reason ? c : undefined;
      });
      assertStringIncludes(down.info.reason, "password");
      assertEquals(down.info.retry_in_ms, undefined, "no retry after a permanent refusal");
      assert(!server.output().includes("secret-pw"), "the password must not be logged");
      assertEquals((await user.delete("/api/connection/irc-localhost-2")).status, 200);
    });

    await t.step("the same host, port and nick twice is a 400", async () => {
      const res = await user.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/url");
    });

    await t.step("messages from others are stored, counted and notified", async () => {
      socket = await EventSocket.open(user);
      await socket.waitFor((e) => e.event === "handshake" && !e.errors);
      await bob.say("#test", "hello everyone");
      await bob.say("#test", "alice: are you there?");
      await bob.say("alice", "psst, a secret");
      const priv = await socket.waitFor((e) =>
        e.event === "message" && e.conversation_id === "bob"
      );
      assertEquals(priv.from, "bob");
      assertEquals(priv.message, "psst, a secret");
      const mention = await socket.waitFor((e) =>
        e.event === "notification" && e.message === "alice: are you there?"
      );
      assertEquals(mention.conversation_id, "#test");
      await socket.waitFor((e) => e.event === "notification" && e.conversation_id === "bob");
      assert(
        !socket.events.some((e) => e.event === "notification" && e.message === "hello everyone"),
      );
      const convs = await conversations(user);
      assertEquals(Object.keys(convs).sort(), ["#test", "bob"]);
      assertEquals(convs["#test"].unread, 2);
      assertEquals(convs["#test"].name, "#Test");
      assertEquals(convs["#test"].connection_id, id);
      assertEquals(convs.bob.unread, 1);
      const me = await user.get("/api/user?connections=true&conversations=true");
      assertEquals(me.body.connections[0].connection_id, id);
      assertEquals(me.body.conversations.length, 2);
      assertEquals(
        me.body.unread,
        2,
        "the mention and the private message are unread notifications",
      );
      const history = await user.get(`/api/connection/${id}/conversation/%23test/messages`);
      assertEquals(
        history.body.messages.filter((m: any) => m.from === "bob").map((m: any) => m.message),
        ["hello everyone", "alice: are you there?"],
      );
      // The live message and the history API name it by the same msgid.
      const live = socket.events.find((e) =>
        e.event === "message" && e.message === "hello everyone"
      );
      const stored = history.body.messages.find((m: any) => m.message === "hello everyone");
      assert(live?.event === "message" && /^[0-9a-z]+\.[0-9a-z]+$/.test(live.msgid));
      assertEquals(stored.msgid, live.msgid);
      const notes = await user.get("/api/notifications");
      assertEquals(notes.body.messages.map((m: any) => m.message), [
        "psst, a secret",
        "alice: are you there?",
      ]);
    });

    await t.step("mark as read clears unread counts", async () => {
      const res = await user.post(`/api/connection/${id}/conversation/%23test/read`);
      assertEquals(res.status, 200);
      assertEquals((await conversations(user))["#test"].unread, 0);
      assertEquals((await conversations(user)).bob.unread, 1);
      assertEquals((await user.post(`/api/connection/${id}/read`)).status, 200);
      assertEquals((await user.post(`/api/connection/${id}/conversation//read`)).status, 200);
      const nope = await user.post(`/api/connection/${id}/conversation/%23nope/read`);
      assertEquals(nope.status, 404);
      assertEquals((await conversations(user)).bob.unread, 0);
      await socket!.waitFor((e) => e.event === "unread" && e.unread === 0);
      // Where each is read up to, for attached IRC clients' MARKREAD.
      const read = await socket!.waitFor((e) => e.event === "read" && e.conversation_id === "bob");
      assert(read.event === "read" && parseMicros(read.ts)! > 0);
      assert(socket!.events.some((e) => e.event === "read" && e.conversation_id === "#test"));
      assert(!socket!.events.some((e) => e.event === "read" && e.conversation_id === ""));
    });

    await t.step("the socket sends messages and commands", async () => {
      const sent = await socket!.request({
        method: "send",
        connection_id: id,
        conversation_id: "#test",
        message: "hi bob",
      });
      assertEquals(sent.event, "sent");
      assertEquals(sent.errors, undefined);
      const got = await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hi bob");
      assertEquals(got.nick, "alice");
      await socket!.waitFor((e) => e.event === "message" && e.message === "hi bob");
      await socket!.request({
        method: "send",
        connection_id: id,
        conversation_id: "#test",
        message: "/me waves",
      });
      await bob.waitFor((l) => l.params[1] === "\x01ACTION waves\x01");
      const unknown = await socket!.request({
        method: "send",
        connection_id: id,
        conversation_id: "#test",
        message: "/frobnicate now",
      });
      assertStringIncludes(unknown.errors[0].message, "Unknown command");
      const ping = await socket!.request({ method: "ping" });
      assertEquals(ping.event, "pong");
      const load = await socket!.request({ method: "load" });
      assertEquals(load.user.email, "user@example.com");
      assertEquals(load.user.connections[0].connection_id, id);
      const rest = await user.post(`/api/connection/${id}/conversation/bob/messages`, {
        message: "a reply from a script",
      });
      assertEquals(rest.status, 200);
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "a reply from a script");
      const fromServer = await user.post(`/api/connection/${id}/conversation//messages`, {
        message: "/msg bob from the server tab",
      });
      assertEquals(fromServer.status, 200);
      assertEquals(fromServer.body.conversation_id, "bob");
      await bob.waitFor((l) => l.params[1] === "from the server tab");
      const plain = await user.post(`/api/connection/${id}/conversation//messages`, {
        message: "plain text",
      });
      assertEquals(plain.status, 400);
      const bad = await user.post(`/api/connection/${id}/conversation/bob/messages`, {});
      assertEquals(bad.body.errors[0].path, "/body/message");
    });

    await t.step("CTCP, topics, on-connect commands and nick regain", async () => {
      await bob.say("alice", "\x01PING 42\x01");
      await bob.waitFor((l) => l.command === "NOTICE" && l.params[1] === "\x01PING 42\x01");
      await bob.say("alice", "\x01VERSION\x01");
      const version = await bob.waitFor((l) =>
        l.command === "NOTICE" && l.params[1].startsWith("\x01VERSION")
      );
      assertStringIncludes(version.params[1], "Parley");
      await bob.say("alice", "\x01TIME\x01");
      await bob.waitFor((l) => l.command === "NOTICE" && l.params[1].startsWith("\x01TIME "));

      const topic = await socket!.request({
        method: "send",
        connection_id: id,
        conversation_id: "#test",
        message: "/topic Parley testing",
      });
      assertEquals(topic.errors, undefined);
      await poll(
        "the topic",
        async () => (await conversations(user))["#test"].topic === "Parley testing",
      );
      await socket!.waitFor((e) => e.type === "topic" && e.topic === "Parley testing");

      // Someone holds the nick "erin"; the new connection gets "erin_" until it frees up.
      const holder = await RawIrcClient.connect(irc.port, "erin");
      await bob.join("#other");
      const res = await user.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=erin`,
        on_connect_commands: ["/join #other", "PRIVMSG bob :ready"],
      });
      assertEquals(res.status, 200);
      assertEquals(res.body.on_connect_commands, ["/join #other", "PRIVMSG bob :ready"]);
      const second = res.body.connection_id;
      await bob.waitFor((l) =>
        l.command === "JOIN" && l.nick === "erin_" && l.params[0] === "#other"
      );
      await bob.waitFor((l) =>
        l.command === "PRIVMSG" && l.nick === "erin_" && l.params[1] === "ready"
      );
      assertEquals((await connection(user, second)).info.nick, "erin_");
      await holder.close();
      await poll(
        "erin regained",
        async () => (await connection(user, second)).info.nick === "erin",
      );
      await bob.waitFor((l) => l.command === "NICK" && l.params[0] === "erin");
      assertEquals((await user.delete(`/api/connection/${second}`)).status, 200);
      await bob.waitFor((l) => l.command === "QUIT" && l.nick === "erin");
    });

    await t.step("a nick the server refuses is not the wanted one, nor taken later", async () => {
      // frank is in #test with alice, so alice sees him quit.
      const frank = await RawIrcClient.connect(irc.port, "frank");
      await frank.join("#test");
      await socket!.waitFor((e) => e.type === "join" && e.nick === "frank");
      const asked = await socket!.request({
        method: "send",
        connection_id: id,
        conversation_id: "",
        message: "/nick frank",
      });
      assertEquals(asked.errors, undefined);
      // Told, in the server conversation where the command was typed.
      const refusal = await socket!.waitFor((e) =>
        e.type === "error" && e.connection_id === id && e.error === "nickname_in_use"
      );
      assertEquals(refusal.conversation_id, "");
      await frank.close();
      await socket!.waitFor((e) => e.type === "quit" && e.nick === "frank");
      // Three rounds of the regain (500 ms here) later, and after the quit that frees it, alice
      // has not taken frank: the refused nick was never the wanted one.
      await new Promise((r) => setTimeout(r, 1500));
      assertEquals((await connection(user, id)).info.nick, "alice");
    });

    await t.step("a private conversation follows a nick change", async () => {
      await bob.send("NICK bobby");
      await socket!.waitFor((e) => e.type === "rename" && e.conversation_id === "bobby");
      const convs = await conversations(user);
      assertEquals(convs.bobby.name, "bobby");
      assertEquals(convs.bob, undefined);
      await bob.send("NICK bob");
      await socket!.waitFor((e) => e.type === "rename" && e.conversation_id === "bob");
    });

    await t.step(
      "a channel left with /part leaves the list, and /join brings it back",
      async () => {
        const send = (message: string) =>
          user.post(`/api/connection/${id}/conversation/%23test/messages`, { message });
        assertEquals((await send("/part")).status, 200);
        await bob.waitFor((l) => l.command === "PART" && l.nick === "alice");
        assertEquals((await conversations(user))["#test"], undefined);
        const kept = await user.get(`/api/connection/${id}/conversation/%23test/messages`);
        assert(kept.body.messages.length > 0, "the history is kept");
        assertEquals((await send("/join #test")).status, 200);
        await poll("#test listed again", async () => (await conversations(user))["#test"]);
      },
    );

    await t.step("the socket refuses anonymous and cross-site clients", async () => {
      const anon = await EventSocket.open({ base: server.url, cookieHeader: "" });
      const hs = await anon.waitFor((e) => e.event === "handshake");
      assert(hs.errors?.length);
      assertEquals((await anon.closed).code, 1008);
      const cross = await EventSocket.open(user, { origin: "https://evil.example" });
      const hs2 = await cross.waitFor((e) => e.event === "handshake");
      assert(hs2.errors?.length);
      assertEquals((await cross.closed).code, 1008);
      // A socket ends with its session.
      const other = new ApiClient(server.url);
      const me = await other.login("user@example.com");
      const lived = await EventSocket.open(other);
      await lived.waitFor((e) => e.event === "handshake" && !e.errors);
      const out = await other.get(`/api/user/logout?csrf=${encodeURIComponent(me.csrf)}`);
      assertEquals(out.status, 302);
      assertEquals((await lived.closed).code, 1008);
    });

    await t.step("another user sees none of it", async () => {
      assertEquals((await admin.get("/api/connections")).body.connections, []);
      assertEquals((await admin.get("/api/conversations")).body.conversations, []);
      assertEquals(
        (await admin.post(`/api/connection/${id}`, { wanted_state: "disconnected" })).status,
        404,
      );
      assertEquals((await admin.post(`/api/connection/${id}/read`)).status, 404);
      assertEquals((await admin.post(`/api/connection/${id}/conversation/bob/read`)).status, 404);
      assertEquals((await admin.delete(`/api/connection/${id}`)).status, 404);
      const send = await admin.post(`/api/connection/${id}/conversation/bob/messages`, {
        message: "hijack",
      });
      assertEquals(send.status, 404);
      const adminSocket = await EventSocket.open(admin);
      await bob.say("alice", "only for alice");
      await socket!.waitFor((e) => e.event === "message" && e.message === "only for alice");
      const answer = await adminSocket.request({ method: "send", connection_id: id, message: "x" });
      // Convos's wording on the socket (t/web-irc-events.t:77).
      assertEquals(answer.errors[0].message, "Connection not found.");
      assert(!adminSocket.events.some((e) => e.event === "message"));
      await adminSocket.close();
      assertEquals((await user.get(`/api/connection/${id}`)).status !== 200, true);
    });

    await t.step("the connection comes back after the IRC server dies", async () => {
      await irc.stop();
      await poll("alice to notice", async () => (await connection(user, id)).state !== "connected");
      // A connection whose first connect fails keeps trying too.
      const res = await user.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=dave`,
      });
      assertEquals(res.status, 200);
      await poll("dave's first attempt to fail", async () => {
        const c = await connection(user, res.body.connection_id);
        return c.state === "disconnected" && c.info.reason;
      });
      await irc.start();
      await waitState(user, id, "connected");
      await waitState(user, res.body.connection_id, "connected");
      assertEquals((await user.delete(`/api/connection/${res.body.connection_id}`)).status, 200);
      bob = await RawIrcClient.connect(irc.port, "bob");
      await bob.join("#test");
      // alice rejoins #test on her own.
      await poll("alice back in #test", async () => {
        await bob.send("NAMES #test");
        const names = await bob.waitFor((l) =>
          l.command === "353" && l.params.at(-2)?.toLowerCase() === "#test"
        );
        bob.lines.splice(0);
        return names.params.at(-1)!.split(" ").some((n) => n.replace(/^[@+]/, "") === "alice");
      });
    });

    await t.step("a restart of Parley reconnects and rejoins", async () => {
      await socket!.close();
      await server.restart();
      await bob.waitFor((l) => l.command === "QUIT" && l.nick === "alice");
      await bob.waitFor((l) => l.command === "JOIN" && l.nick === "alice");
      await waitState(user, id, "connected");
    });

    await t.step("wanted_state disconnected disconnects and stays so", async () => {
      bob.lines.splice(0);
      const res = await user.post(`/api/connection/${id}`, { wanted_state: "disconnected" });
      assertEquals(res.status, 200);
      assertEquals(res.body.wanted_state, "disconnected");
      await bob.waitFor((l) => l.command === "QUIT" && l.nick === "alice");
      await waitState(user, id, "disconnected");
      const back = await user.post(`/api/connection/${id}`, { wanted_state: "connected" });
      assertEquals(back.body.wanted_state, "connected");
      await waitState(user, id, "connected");
    });

    await t.step("changing the URL reconnects with the new settings", async () => {
      bob.lines.splice(0);
      const res = await user.post(`/api/connection/${id}`, {
        url: `irc://127.0.0.1:${irc.port}?nick=alice2`,
        on_connect_commands: ["PRIVMSG bob :back"],
      });
      assertEquals(res.status, 200);
      assertEquals(res.body.url, `irc://127.0.0.1:${irc.port}?nick=alice2`);
      await bob.waitFor((l) => l.command === "QUIT" && l.nick === "alice");
      await bob.waitFor((l) => l.command === "JOIN" && l.nick === "alice2");
      await bob.waitFor((l) => l.nick === "alice2" && l.params[1] === "back");
      const bad = await user.post(`/api/connection/${id}`, { url: "https://example.com" });
      assertEquals(bad.status, 400);
      assertEquals(bad.body.errors[0].path, "/body/url");
      const badState = await user.post(`/api/connection/${id}`, { wanted_state: "maybe" });
      assertEquals(badState.body.errors[0].path, "/body/wanted_state");
    });

    await t.step("removal deletes the connection and its conversations", async () => {
      const res = await user.delete(`/api/connection/${id}`);
      assertEquals(res.status, 200);
      assertEquals((await user.get("/api/connections")).body.connections, []);
      assertEquals((await user.get("/api/conversations")).body.conversations, []);
      assertEquals((await user.delete(`/api/connection/${id}`)).status, 404);
    });

    await t.step("deleting the user ends their connections", async () => {
      const res = await user.post("/api/connections", {
        url: `irc://127.0.0.1:${irc.port}?nick=frank`,
        conversation_id: "#test",
      });
      assertEquals(res.status, 200);
      await bob.waitFor((l) => l.command === "JOIN" && l.nick === "frank");
      assertEquals((await admin.delete("/api/user/user@example.com")).status, 200);
      await bob.waitFor((l) => l.command === "QUIT" && l.nick === "frank");
    });
  } finally {
    if (Deno.env.get("PARLEY_TEST_DUMP")) console.log(server.output());
    await socket?.close().catch(() => {});
    await bob.close();
    await server.close();
    await irc.close();
  }
});
