/**
 * An IRC client attaches to a user's connection through the bouncer listener (SASL PLAIN or
 * PASS), gets the registration burst of the real upstream (ngircd), and shares one live stream
 * with the web client: what it says is sent, stored and seen; what others say reaches it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer as setup } from "../support/bouncer.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";
import type { ApiClient } from "../support/api.ts";
import type { TestApp } from "../support/app.ts";
import { BouncerClient } from "../support/bouncer_client.ts";

/** Whether the user's conversation `name` is listed (with `topic`, when given). */
async function hasTopic(api: ApiClient, name: string, topic: string): Promise<boolean> {
  const r = await api.get("/api/conversations");
  const conv = r.body.conversations.find((c: { name: string }) => c.name === name);
  return !!conv && (!topic || conv.topic === topic);
}

async function joined(app: TestApp, cid: string, channel: string) {
  await app.deps.irc.send(1, cid, "", `/join ${channel}`);
}

Deno.test("bouncer: attach with SASL, burst, one live stream both ways", async (t) => {
  const s = await setup();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    await joined(s.app, s.cid, "#parley");
    await poll("alice is in #parley", () => hasTopic(s.api, "#parley", ""));
    await bob.join("#parley");
    await bob.send("TOPIC #parley :the topic");
    await poll("alice sees the topic", () => hasTopic(s.api, "#parley", "the topic"));

    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@laptop`, PASSWORD, [
      "server-time",
      "message-tags",
      "echo-message",
      "labeled-response",
      "batch",
    ]);

    await t.step(
      "the burst: 001 with the nick, ISUPPORT with Parley's tokens, the channel",
      async () => {
        const welcome = await c.waitFor((l) => l.command === "001");
        assertEquals(welcome.params[0], "alice");
        await c.waitFor((l) => l.command === "366" && l.params[1] === "#parley");
        const isupport = c.lines.filter((l) => l.command === "005").flatMap((l) => l.params);
        const limit = Number(isupport.find((t) => t.startsWith("CHATHISTORY="))?.split("=")[1]);
        assert(limit >= 100, isupport.join(" "));
        assert(isupport.includes("MSGREFTYPES=timestamp,msgid"));
        assert(isupport.includes(`BOUNCER_NETID=${s.cid}`));
        assert(isupport.some((t) => t.startsWith("PREFIX=")), "the upstream's ISUPPORT");
        assert(c.lines.some((l) => l.command === "375" || l.command === "422"));
        const join = c.lines.find((l) => l.command === "JOIN");
        assertEquals(join?.params, ["#parley"]);
        assertEquals(c.lines.find((l) => l.command === "332")?.params.at(-1), "the topic");
        const names = c.lines.filter((l) => l.command === "353").flatMap((l) =>
          l.params[3].split(" ")
        );
        assert(names.includes("bob"), names.join(" "));
        assert(names.some((n) => n.endsWith("alice")), names.join(" "));
      },
    );

    await t.step("someone else's message reaches the client with time and msgid", async () => {
      await bob.say("#parley", "hello from bob");
      const got = await c.waitFor((l) =>
        l.command === "PRIVMSG" && l.params[1] === "hello from bob"
      );
      assertEquals(got.params[0], "#parley");
      assert(got.prefix.startsWith("bob!"), got.raw);
      assert(got.tags.get("time")?.endsWith("Z"), got.raw);
      assert(got.tags.get("msgid"), got.raw);
    });

    await t.step(
      "the client's message goes to IRC, is stored and echoed with its label",
      async () => {
        await c.send("@label=abc PRIVMSG #parley :hello from irssi");
        const echo = await c.waitFor((l) =>
          l.command === "PRIVMSG" && l.params[1] === "hello from irssi"
        );
        assertEquals(echo.tags.get("label"), "abc");
        assert(echo.tags.get("msgid"));
        await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hello from irssi");
        const history = await s.api.get(`/api/connection/${s.cid}/conversation/%23parley/messages`);
        assert(
          history.body.messages.some((m: { message: string }) => m.message === "hello from irssi"),
          JSON.stringify(history.body),
        );
      },
    );

    await t.step(
      "a second client sees the first one's line; the web client's reaches both",
      async () => {
        const d = await BouncerClient.attach(
          s.port,
          `${EMAIL}/${s.cid}@phone`,
          PASSWORD,
          [],
          "phone",
        );
        await d.waitFor((l) => l.command === "366");
        const from = d.lines.length;
        await c.send("PRIVMSG #parley :from the laptop");
        const seen = await d.waitFor(
          (l) => l.command === "PRIVMSG" && l.params[1] === "from the laptop",
          from,
        );
        assert(seen.prefix.startsWith("alice"), seen.raw);
        assertEquals(seen.tags.size, 0, "no tags for a client without message-tags");
        await s.app.deps.irc.send(1, s.cid, "#parley", "from the web");
        await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "from the web");
        await d.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "from the web");
        await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "from the web");
        d.close();
      },
    );

    await t.step("lines keep the server's order, stored ones among the others", async () => {
      const carol = await RawIrcClient.connect(s.ngircd.port, "carol");
      await carol.join("#parley");
      await c.waitFor((l) => l.command === "JOIN" && l.prefix.startsWith("carol!"));
      const from = c.lines.length;
      // One write: Parley reads them together, and stores the messages while the rest goes on.
      await carol.send("PRIVMSG #parley :one\r\nPRIVMSG #parley :two\r\nPART #parley :bye");
      await c.waitFor((l) => l.command === "PART" && l.prefix.startsWith("carol!"), from);
      await c.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "two", from);
      const seen = c.lines.slice(from).filter((l) => l.prefix.startsWith("carol!"))
        .map((l) => l.command === "PRIVMSG" ? l.params[1] : l.command);
      assertEquals(seen, ["one", "two", "PART"]);
      await carol.close();
    });

    await t.step("a WHOIS reply goes to the client that asked only", async () => {
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "other");
      await d.waitFor((l) => l.command === "366");
      await c.send("@label=w1 WHOIS bob");
      const end = await c.waitFor((l) => l.command === "318");
      assertEquals(end.tags.get("batch") !== undefined, true, end.raw);
      assert(c.lines.some((l) => l.command === "BATCH" && l.tags.get("label") === "w1"));
      await c.send("PING :after");
      await c.waitFor((l) => l.command === "PONG" && l.params[1] === "after");
      await d.send("PING :sync");
      await d.waitFor((l) => l.command === "PONG");
      assert(
        !d.lines.some((l) => l.command === "311" || l.command === "318"),
        "the other client saw it",
      );
      d.close();
    });

    await t.step("SEARCH (soju.im/search) finds stored lines with their live msgid", async () => {
      await s.app.searchable();
      const d = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [
        "soju.im/search",
        "batch",
        "server-time",
        "message-tags",
      ], "searcher");
      await d.waitFor((l) => l.command === "366");
      await d.send("SEARCH in=#parley;text=hello");
      const open = await d.waitFor((l) =>
        l.command === "BATCH" && l.params[1] === "soju.im/search"
      );
      const id = open.params[0].slice(1);
      await d.waitFor((l) => l.command === "BATCH" && l.params[0] === `-${id}`);
      const found = d.lines.filter((l) => l.command === "PRIVMSG" && l.tags.get("batch") === id);
      assertEquals(found.map((l) => l.params[1]), ["hello from bob", "hello from irssi"]);
      const live = c.lines.find((l) => l.command === "PRIVMSG" && l.params[1] === "hello from bob");
      assertEquals(found[0].tags.get("msgid"), live?.tags.get("msgid"), "the same msgid as live");
      assertEquals(found[0].tags.get("time"), live?.tags.get("time"));
      await d.send("SEARCH before=yesterday");
      const fail = await d.waitFor((l) => l.command === "FAIL");
      assertEquals(fail.params.slice(0, 2), ["SEARCH", "INVALID_PARAMS"]);
      d.close();
    });

    await t.step("JOIN, PART, NICK act upstream; QUIT detaches and Parley stays", async () => {
      await c.send("JOIN #second");
      await c.waitFor((l) => l.command === "JOIN" && l.params[0] === "#second");
      await poll("the web client has #second", () => hasTopic(s.api, "#second", ""));
      await c.send("PART #second :done");
      await c.waitFor((l) => l.command === "PART" && l.params[0] === "#second");
      await c.send("NICK alice_2");
      const nick = await c.waitFor((l) => l.command === "NICK" && l.params[0] === "alice_2");
      assert(nick.prefix.startsWith("alice!"), nick.raw);
      await bob.waitFor((l) => l.command === "NICK" && l.params[0] === "alice_2");
      await poll("the API has the new nick", async () => {
        const r = await s.api.get("/api/connections");
        return r.body.connections[0].info.nick === "alice_2";
      });
      await c.send("QUIT :bye");
      await c.waitClosed();
      assertEquals(
        s.app.deps.irc.state((await s.app.deps.store.connections.get(1, s.cid))!.id),
        "connected",
      );
    });
  } finally {
    await bob.close();
    await s.close();
  }
});
