// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Commands that answer, against a real ngircd: `/topic` and `/mode` alone tell the current topic
 * and modes, `/invite` says the server confirmed, `/join name` joins `#name`, `/msg` to a nick
 * nobody has leaves no conversation behind, one to a service opens none, and `/quote`'s answers
 * that nothing else takes are shown.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("commands answer: /topic, /mode, /invite, /join name, /msg to nobody", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const api = new ApiClient(server.url);
  await api.register("alice@example.com");
  let bob: RawIrcClient | undefined;
  let services: RawIrcClient | undefined;
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#answers",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const base = "/api/connection/irc-localhost/conversation";
    const history = async () =>
      ((await api.get(`${base}/%23answers/messages`)).body.messages ?? []) as any[];
    await poll("alice in #answers", async () => (await history()).some((m) => m.type === "join"));
    const send = async (message: string, where = "%23answers") => {
      const res = await api.post(`${base}/${where}/messages`, { message });
      assertEquals(res.status, 200, `${message}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const conversations = async () =>
      ((await api.get("/api/conversations")).body.conversations as any[])
        .map((c) => c.conversation_id);

    assertEquals((await send("/topic")).topic, "", "no topic yet (331)");
    await send("/topic what we answer");
    assertEquals((await send("/topic")).topic, "what we answer", "the server's 332");
    await send("/mode +m");
    await poll("+m stored", async () => (await history()).some((m) => m.type === "mode"));
    assert((await send("/mode")).modes.includes("m"), "the channel's modes");

    bob = await RawIrcClient.connect(irc.port, "bob");
    const invited = await send("/invite bob");
    assertEquals(invited.invited, { nick: "bob", channel: "#answers" });
    await bob.waitFor((l) => l.command === "INVITE" && l.params[1] === "#answers");
    // bob is invited by nobody he can refuse: no 341 for a nick that does not exist.
    assertEquals((await send("/invite nobody")).invited, undefined);

    const joined = await send("/join plain");
    assertEquals(joined.conversation_id, "#plain");
    await poll("#plain joined", async () => (await conversations()).includes("#plain"));
    // Several at once: each name a channel, the answer the first's.
    const both = await send("/join first,#second");
    assertEquals(both.conversation_id, "#first");
    await poll("both joined", async () => {
      const now = await conversations();
      return now.includes("#first") && now.includes("#second");
    });

    const missing = await send("/msg nobody are you there?");
    assertEquals(missing.no_such_nick, "nobody");
    assertEquals(missing.conversation_id, "#answers", "the user stays where they are");
    const found = await send("/msg bob are you there?");
    assertEquals(found.conversation_id, "bob");
    const list = await conversations();
    assert(list.includes("bob"), "a nick that exists gets its conversation");
    assert(!list.includes("nobody"), `no conversation for a nick nobody has: ${list}`);

    // A service (NickServ, as the default profile names it): the line and its answer are in the
    // server's conversation, not one of their own, and the answer names it.
    services = await RawIrcClient.connect(irc.port, "NickServ");
    const identify = await send("/msg NickServ identify s3cret");
    assertEquals(identify.conversation_id, "");
    const asked = await services.waitFor((l) => l.command === "PRIVMSG");
    assertEquals(asked.params, ["NickServ", "identify s3cret"]);
    await services.send("NOTICE alice :You are now identified.");
    const server_ = async () =>
      ((await api.get("/api/connection/irc-localhost/messages")).body.messages ?? []) as any[];
    await poll(
      "the answer in the server's conversation",
      async () => (await server_()).some((m) => m.message === "You are now identified."),
    );
    assertEquals(
      (await server_()).filter((m) => /identif/.test(m.message)).map((m) => [m.from, m.message]),
      [["alice", "identify ********"], ["NickServ", "You are now identified."]],
    );
    assert(!(await conversations()).includes("nickserv"), "no conversation of its own");

    // A raw line's answer that nothing else handles (ngircd's 391 to TIME, its 481 to KILL) is
    // shown in the server's conversation, as Convos shows it.
    await send("/quote TIME");
    await send("/quote KILL bob :no");
    await poll("the answers in the server's conversation", async () => {
      const lines = await server_();
      return lines.some((m) => m.type === "error" && /permission denied/i.test(m.message));
    });
    const time = (await server_()).find((m) => m.type === "notice" && /^irc\.\S+ /.test(m.message));
    assert(time, "the server's time");
  } finally {
    await services?.close();
    await bob?.close();
    await server.close();
    await irc.close();
  }
});
