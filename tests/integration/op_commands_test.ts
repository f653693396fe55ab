// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * Operator commands against a real ngircd: /op, /deop, /voice and /devoice name several people
 * in one MODE line, /ban bans the person by the host the server tells (so they cannot come back
 * under another nick), /unban lifts every ban on the list that matches them, /kickban bans then
 * kicks, and /cycle leaves and joins again with the channel's key.
 */
import { assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

Deno.test("operator commands: /op, /deop, /voice, /devoice, /ban, /unban, /kickban, /cycle", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const api = new ApiClient(server.url);
  await api.register("alice@example.com");
  const clients: RawIrcClient[] = [];
  try {
    const made = await api.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#ops",
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    // alice joins first, so ngircd makes her the channel's operator.
    const history = async () =>
      (await api.get("/api/connection/irc-localhost/conversation/%23ops/messages")).body
        .messages as any[];
    await poll("alice in #ops", async () => (await history()).some((m) => m.type === "join"));
    for (const nick of ["bob", "carol", "dave"]) {
      const c = await RawIrcClient.connect(irc.port, nick);
      clients.push(c);
      await c.join("#ops");
    }
    const [bob, carol, dave] = clients;
    await bob.waitForMember("#ops", "alice");
    const send = async (message: string) => {
      const res = await api.post("/api/connection/irc-localhost/conversation/%23ops/messages", {
        message,
      });
      assertEquals(res.status, 200, `${message}: ${JSON.stringify(res.body)}`);
    };
    /** The next MODE line bob sees from alice, as "modes params...". */
    const modeLine = async (act: () => Promise<void>) => {
      const from = bob.lines.length;
      await act();
      const l = await bob.waitFor((l) =>
        l.command === "MODE" && l.nick === "alice" && bob.lines.indexOf(l) >= from
      );
      return l.params.slice(1).join(" ");
    };

    assertEquals(await modeLine(() => send("/op bob carol")), "+oo bob carol");
    assertEquals(await modeLine(() => send("/deop carol")), "-o carol");
    assertEquals(await modeLine(() => send("/voice carol dave")), "+vv carol dave");
    assertEquals(await modeLine(() => send("/devoice dave")), "-v dave");

    // Banned by ident and host, so a new nick does not help; the server says who dave is.
    const banned = await modeLine(() => send("/ban dave"));
    const whois = await api.post("/api/connection/irc-localhost/conversation/%23ops/messages", {
      message: "/whois dave",
    });
    const host = whois.body.whois?.hostname;
    assertEquals(banned, `+b *!*dave@${host}`);
    await dave.send("PART #ops");
    await dave.send("NICK dave2");
    await dave.send("JOIN #ops");
    await dave.waitFor((l) => l.command === "474"); // ERR_BANNEDFROMCHAN
    // /unban with the nick finds the ban on the channel's list that matches dave's host.
    await dave.send("NICK dave");
    await dave.waitFor((l) => l.command === "NICK" && l.params[0] === "dave");
    assertEquals(await modeLine(() => send("/unban dave")), `-b *!*dave@${host}`);
    await dave.join("#ops");

    // A mask is banned as typed, several at once; usage without anyone named.
    const from = bob.lines.length;
    await send("/ban x!*@* *!*@y.example");
    await bob.waitFor((l) => l.command === "MODE" && l.params.includes("*!*@y.example"));
    // ngircd relays each ban of a MODE line on its own.
    const bans = bob.lines.slice(from).filter((l) => l.command === "MODE")
      .flatMap((l) => l.params.slice(2));
    assertEquals(bans, ["x!*@*", "*!*@y.example"]);
    const empty = await api.post("/api/connection/irc-localhost/conversation/%23ops/messages", {
      message: "/op",
    });
    assertEquals(empty.status, 400);
    assertEquals(empty.body.errors[0].message, "Usage: /op <nick> [nick...]");

    // /kickban: the ban goes first, then the kick; carol cannot come back.
    const kickFrom = bob.lines.length;
    await send("/kickban carol enough now");
    const kick = await bob.waitFor((l) => l.command === "KICK" && bob.lines.indexOf(l) >= kickFrom);
    assertEquals(kick.params, ["#ops", "carol", "enough now"]);
    const kickban = bob.lines.slice(kickFrom).filter((l) =>
      l.command === "MODE" || l.command === "KICK"
    );
    assertEquals(kickban.map((l) => l.command), ["MODE", "KICK"]);
    assertEquals(kickban[0].params.slice(1, 2), ["+b"]);
    await carol.send("JOIN #ops");
    await carol.waitFor((l) => l.command === "474");

    // /cycle: out and in again, with the key the channel has now (else ngircd refuses: 475).
    await send("/mode +k sekrit");
    await bob.waitFor((l) => l.command === "MODE" && l.params[1] === "+k");
    // Parley keeps the key as it reads the change, before the change is in history.
    await poll(
      "+k read",
      async () => (await history()).some((m) => m.type === "mode" && /\+k/.test(m.message)),
    );
    const cycleFrom = bob.lines.length;
    await send("/cycle back soon");
    const after = (l: { nick?: string }) => l.nick === "alice";
    const part = await bob.waitFor((l) =>
      l.command === "PART" && after(l) && bob.lines.indexOf(l) >= cycleFrom
    );
    assertEquals(part.params, ["#ops", "back soon"]);
    await bob.waitFor((l) =>
      l.command === "JOIN" && after(l) && bob.lines.indexOf(l) > bob.lines.indexOf(part)
    );
    const outside = await api.post("/api/connection/irc-localhost/conversation//messages", {
      message: "/cycle",
    });
    assertEquals(outside.status, 400, "/cycle in the server conversation names a channel");
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await server.close();
    await irc.close();
  }
});
