/**
 * The listener is a transparent bouncer: what Parley does not handle itself goes to the server
 * as the client wrote it, and the answer comes back to the client that asked, and to it alone.
 * Against a real ngircd for what it knows (ISON, USERHOST, MOTD, LUSERS, VERSION, errors), and a
 * scripted server for what it does not (MONITOR, KNOCK, SETNAME, TAGMSG, CHGHOST).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { lineProxy } from "../support/line_proxy.ts";

/** Waits until everything the bouncer sent a client before now has arrived (PING, then PONG). */
async function sync(c: BouncerClient, token: string): Promise<void> {
  await c.send(`PING :${token}`);
  await c.waitFor((l) => l.command === "PONG" && l.params[1] === token);
}

/** The lines a client got since `from` with one of these commands. */
const got = (c: BouncerClient, from: number, ...commands: string[]): Received[] =>
  c.lines.slice(from).filter((l) => commands.includes(l.command));

Deno.test("bouncer passthrough: query errors, passed-through commands, answers to the asker", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const user = `${EMAIL}/${s.cid}`;
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, [], "a");
  const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, [], "b");
  try {
    await sync(a, "ready");
    await sync(b, "ready");

    await t.step(
      "a query answered by an error, then another client's WHOIS: to it alone",
      async () => {
        const fromA = a.lines.length;
        const fromB = b.lines.length;
        await a.send("MODE #nosuchchannel");
        const err = await a.waitFor((l) => l.command === "401" || l.command === "403", fromA);
        assertEquals(err.params[1], "#nosuchchannel");
        await b.send("WHOIS bob");
        const end = await b.waitFor((l) => l.command === "318", fromB);
        assertEquals(end.params[1], "bob");
        assert(got(b, fromB, "311").length === 1, "b got the WHOIS reply");
        await sync(a, "after-whois");
        assertEquals(got(a, fromA, "311", "318"), [], "the other client saw none of it");
        await sync(b, "after-whois");
        assertEquals(got(b, fromB, "401", "403"), [], "nor the first its error");
        // And again the other way round: nothing stuck.
        const again = a.lines.length;
        await a.send("WHOIS bob");
        await a.waitFor((l) => l.command === "318", again);
      },
    );

    await t.step("a CTCP answer goes to whoever asked: one client, or the web client", async () => {
      /** bob's client answers the next VERSION request, as IRC clients do. */
      const answerNext = async (from: number, reply: string) => {
        const req = await bob.waitFor((l) =>
          l.command === "PRIVMSG" && l.params[1] === "\x01VERSION\x01" &&
          bob.lines.indexOf(l) >= from
        );
        await bob.send(`NOTICE ${req.nick} :\x01VERSION ${reply}\x01`);
      };
      const answers = (c: BouncerClient, from: number) =>
        got(c, from, "NOTICE").map((l) => l.params[1]).filter((t) => t.startsWith("\x01VERSION"));
      let [fromA, fromB] = [a.lines.length, b.lines.length];
      await a.send("PRIVMSG bob :\x01VERSION\x01");
      await answerNext(0, "bobclient 1");
      await a.waitFor((l) => l.command === "NOTICE" && l.params[1].includes("bobclient 1"), fromA);
      await sync(b, "after-ctcp");
      assertEquals(answers(b, fromB), [], "b did not ask");

      // The web client's /ctcp: its answer is the web's alone.
      [fromA, fromB] = [a.lines.length, b.lines.length];
      const fromBob = bob.lines.length;
      const asked = s.app.deps.irc.send(1, s.cid, "", "/ctcp bob version");
      await answerNext(fromBob, "bobclient 2");
      assertEquals((await asked).ctcp?.reply, "bobclient 2");
      // An answer nobody waits for still goes to everyone, as any notice.
      await bob.send("NOTICE alice :\x01VERSION unasked\x01");
      for (const [c, from] of [[a, fromA], [b, fromB]] as const) {
        await c.waitFor((l) => l.command === "NOTICE" && l.params[1].includes("unasked"), from);
        assertEquals(answers(c, from), ["\x01VERSION unasked\x01"], "not the web's answer");
      }
    });

    const passes = async (command: string, answer: string[], end: string) => {
      const fromA = a.lines.length;
      const fromB = b.lines.length;
      await a.send(command);
      await a.waitFor((l) => l.command === end, fromA);
      for (const n of answer) {
        assert(got(a, fromA, n).length > 0, `${command}: ${n} reached the asker`);
      }
      await sync(b, `after-${command.split(" ")[0]}`);
      assertEquals(got(b, fromB, ...answer, end), [], `${command}: the other client saw none`);
      assertEquals(got(a, fromA, "421"), [], `${command}: not refused`);
      return got(a, fromA, ...answer, end);
    };

    await t.step("ISON and USERHOST (irssi's and weechat's /notify)", async () => {
      const ison = await passes("ISON bob nobody", [], "303");
      assertEquals(ison.at(-1)?.params.at(-1)?.trim(), "bob");
      const userhost = await passes("USERHOST bob", [], "302");
      assert(userhost.at(-1)?.params.at(-1)?.startsWith("bob="), userhost.at(-1)?.raw);
    });

    await t.step("MOTD, LUSERS, VERSION", async () => {
      await passes("MOTD", ["375"], "376");
      await passes("LUSERS", ["251", "255"], "266");
      const version = await passes("VERSION", [], "351");
      assert(version.at(-1)?.params[1].startsWith("ngIRCd"), version.at(-1)?.raw);
    });

    await t.step(
      "SETNAME where the server cannot: the specification's FAIL, not a 421",
      async () => {
        const [fromA, fromB] = [a.lines.length, b.lines.length];
        await a.send("SETNAME :A New Name");
        const fail = await a.waitFor((l) => l.command === "FAIL", fromA);
        assertEquals(fail.params.slice(0, 2), ["SETNAME", "CANNOT_CHANGE_REALNAME"]);
        await sync(a, "after-setname");
        assertEquals(got(a, fromA, "421"), []);
        await sync(b, "after-setname");
        assertEquals(got(b, fromB, "FAIL", "421"), [], "the other client was not told");
      },
    );

    await t.step("AWAY and back: 306 and 305 to the asker, with its label", async () => {
      await passes("AWAY :lunch", [], "306");
      await passes("AWAY", [], "305");
      const l = await BouncerClient.attach(
        s.port,
        `${user}@l`,
        PASSWORD,
        ["labeled-response"],
        "l",
      );
      try {
        await sync(l, "ready");
        const from = l.lines.length;
        await l.send("@label=aw1 AWAY :brb");
        const away = await l.waitFor((x) => x.command === "306", from);
        assertEquals(away.tags.get("label"), "aw1");
        await l.send("@label=aw2 AWAY");
        const back = await l.waitFor((x) => x.command === "305", from);
        assertEquals(back.tags.get("label"), "aw2");
        assertEquals(got(l, from, "ACK"), [], "answered by the server's reply, not an ACK");
      } finally {
        l.close();
      }
    });

    await t.step("a command the server does not know: its 421, to the asker", async () => {
      const fromB = b.lines.length;
      await a.send("FROBNICATE x");
      const err = await a.waitFor((l) => l.command === "421" && l.params[1] === "FROBNICATE");
      assertEquals(err.prefix, "irc.parley.test", "the server's answer, not Parley's");
      await sync(b, "after-frob");
      assertEquals(got(b, fromB, "421"), []);
    });

    await t.step("a message to a channel the user has not joined goes out", async () => {
      await bob.join("#outside");
      const fromB = b.lines.length;
      await a.send("PRIVMSG #outside :hello from outside");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "hello from outside");
      const seen = await b.waitFor(
        (l) => l.command === "PRIVMSG" && l.params[1] === "hello from outside",
        fromB,
      );
      assert(seen.prefix.startsWith("alice"), seen.raw);
      assertEquals(got(a, 0, "404"), []);
    });

    await t.step(
      "a message to a channel that is not there: its refusal to the asker alone",
      async () => {
        const [fromA, fromB] = [a.lines.length, b.lines.length];
        await a.send("PRIVMSG #nowhere-at-all :anyone?");
        const refused = await a.waitFor(
          (l) => (l.command === "401" || l.command === "403") && l.params[1] === "#nowhere-at-all",
          fromA,
        );
        assert(refused.prefix === "irc.parley.test", refused.raw);
        await sync(b, "after-nowhere");
        assertEquals(got(b, fromB, "401", "403").map((l) => l.raw), [], "b was not told");
        // Nor the web client: the user did not say it there.
        const server = await s.api.get(`/api/connection/${s.cid}/messages`);
        const said: string[] = server.body.messages.map((m: { message: string }) => m.message);
        assertEquals(said.filter((m) => m.includes("#nowhere-at-all")), []);
      },
    );

    await t.step("a line to a service opens no conversation, as the web's /msg", async () => {
      const fromB = b.lines.length;
      await a.send("PRIVMSG NickServ :identify s3cret");
      const seen = await b.waitFor(
        (l) => l.command === "PRIVMSG" && l.params[0] === "NickServ",
        fromB,
      );
      assert(seen.prefix.startsWith("alice"), seen.raw);
      const listed = (await s.api.get("/api/conversations")).body.conversations
        .map((c: { conversation_id: string }) => c.conversation_id);
      assert(!listed.includes("nickserv"), listed.join(" "));
      const server = await s.api.get(`/api/connection/${s.cid}/messages`);
      const said: string[] = server.body.messages.map((m: { message: string }) => m.message);
      assert(said.includes("identify ********"), said.join("\n"));
    });

    await t.step("a refused NICK: its 433 to the asker alone", async () => {
      const fromA = a.lines.length;
      const fromB = b.lines.length;
      await a.send("NICK bob");
      const refused = await a.waitFor((l) => l.command === "433", fromA);
      assertEquals(refused.params[1], "bob");
      await sync(b, "after-nick");
      assertEquals(got(b, fromB, "433"), [], "the other client was not told");
    });

    await t.step(
      "refused JOIN, PART, PRIVMSG, operators' commands, TRACE, NAMES, WHO: the asker's",
      async () => {
        // Made invite-only by bob, who made it: alice's JOIN is refused.
        await bob.send("MODE #outside +i");
        await bob.waitFor((l) => l.command === "MODE" && l.params[1] === "+i");
        const fromA = a.lines.length;
        const fromB = b.lines.length;
        await a.send("JOIN #outside");
        await a.waitFor((l) => l.command === "473" && l.params[1] === "#outside", fromA);
        await a.send("PART #nowhere");
        await a.waitFor((l) => l.command === "403" && l.params[1] === "#nowhere", fromA);
        await a.send("OPER alice wrong");
        await a.waitFor((l) => l.command === "464", fromA);
        await b.send("KILL bob :out");
        await b.waitFor((l) => l.command === "481", fromB);
        await a.send("TRACE");
        await a.waitFor((l) => l.command === "262", fromA);
        // Of nothing named, the server's answer names every channel, and then `*`.
        await b.send("NAMES");
        const names = await b.waitFor((l) => l.command === "366", fromB);
        assertEquals(names.params[1], "*");
        assert(got(b, fromB, "353").some((l) => l.params[2] === "#outside"), "b got the names");
        await a.send("WHO");
        await a.waitFor((l) => l.command === "315", fromA);
        assert(got(a, fromA, "352").some((l) => l.params[5] === "bob"), "a got the WHO");
        // A message to a nick not on IRC: the other client sees the line, not its refusal.
        await a.send("PRIVMSG nobody :are you there");
        await a.waitFor((l) => l.command === "401" && l.params[1] === "nobody", fromA);
        await b.waitFor((l) => l.command === "PRIVMSG" && l.params[0] === "nobody", fromB);
        await sync(a, "after-refusals");
        await sync(b, "after-refusals");
        const raw = (ls: Received[]) => ls.map((l) => l.raw);
        assertEquals(raw(got(b, fromB, "473", "403", "464", "262", "352", "315", "401")), []);
        assertEquals(raw(got(a, fromA, "481", "353", "366")), []);
        assertEquals(raw([...got(a, fromA, "461"), ...got(b, fromB, "461")]), []);
      },
    );

    await t.step("the regain's tries while the nick is held: told to no one", async () => {
      const { api, cid } = s;
      const mine = async () =>
        (await api.get("/api/connections")).body.connections
          .find((c: { connection_id: string }) => c.connection_id === cid);
      const nickNow = async () => (await mine())?.info?.nick;
      const down = await api.post(`/api/connection/${cid}`, { wanted_state: "disconnected" });
      assertEquals(down.status, 200);
      await poll("disconnected", async () => (await mine())?.state === "disconnected");
      // Through a proxy that keeps what Parley writes: the refused tries show nowhere else.
      const proxy = lineProxy(s.ngircd.port);
      const moved = await api.post(`/api/connection/${cid}`, {
        url: `irc://127.0.0.1:${proxy.port}?nick=alice`,
      });
      assertEquals(moved.status, 200, JSON.stringify(moved.body));
      // Someone takes the nick meanwhile: Parley comes back as alice_ and tries for alice.
      const holder = await RawIrcClient.connect(s.ngircd.port, "alice");
      try {
        assertEquals(
          (await api.post(`/api/connection/${cid}`, { wanted_state: "connected" }))
            .status,
          200,
        );
        await poll("back as alice_", async () => (await nickNow()) === "alice_");
        const [fromA, fromB] = [a.lines.length, b.lines.length];
        const tries = () => proxy.sent.filter((l) => l === "NICK alice").length;
        const before = tries();
        // Rounds of the regain (500 ms here), each refused.
        await poll("three regain rounds", () => Promise.resolve(tries() >= before + 3));
        await sync(a, "regain-a");
        await sync(b, "regain-b");
        assertEquals([...got(a, fromA, "433"), ...got(b, fromB, "433")], []);
        // Nor the server conversation since the connection was up again (the refusal while it
        // registered, which made it alice_, is said before).
        const server = await api.get(`/api/connection/${cid}/messages`);
        const said: string[] = server.body.messages.map((m: { message: string }) => m.message);
        const connected = said.findLastIndex((m) => m.startsWith("Connected to"));
        assert(connected >= 0, said.join("\n"));
        const since = said.slice(connected);
        // A 433 is said as the server said it: the nick, then its words.
        assertEquals(since.filter((m) => m.startsWith("alice: ")), [], said.join("\n"));
      } finally {
        await holder.close();
      }
      await poll("alice regained", async () => (await nickNow()) === "alice");
      await a.waitFor((l) => l.command === "NICK" && l.params[0] === "alice");
      await api.post(`/api/connection/${cid}`, { wanted_state: "disconnected" });
      await poll("disconnected", async () => (await mine())?.state === "disconnected");
      await proxy.close();
    });
  } finally {
    a.close();
    b.close();
    await bob.close();
    await s.close();
  }
});

/** What Parley is offered by the scripted server, all of which it should ask for. */
const OFFERED_UPSTREAM = [
  "chghost",
  "setname",
  "away-notify",
  "account-notify",
  "extended-join",
  "message-tags",
  "invite-notify",
  "multi-prefix",
];

Deno.test("bouncer passthrough: capabilities asked upstream, TAGMSG, CHGHOST, SETNAME, MONITOR, KNOCK", async (t) => {
  const irc = startHostileIrc({ caps: OFFERED_UPSTREAM });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  try {
    await t.step("every capability offered to clients is asked of the server", async () => {
      const req = await server.waitFor((l) => l.startsWith("CAP REQ"));
      const asked = req.replace(/^CAP REQ :?/, "").split(" ");
      for (const cap of OFFERED_UPSTREAM) assert(asked.includes(cap), `${cap} in ${req}`);
    });

    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await answerJoin(server);
    await poll("alice is in #chan", async () => {
      const r = await s.api.get("/api/conversations");
      return r.body.conversations.some((c: { name: string }) => c.name === "#chan");
    });

    const user = `${EMAIL}/${s.cid}`;
    const all = ["message-tags", "chghost", "setname", "echo-message", "labeled-response"];
    const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, all, "a");
    const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, all, "b");
    const plain = await BouncerClient.attach(s.port, `${user}@plain`, PASSWORD, [], "plain");
    for (const c of [a, b, plain]) await c.waitFor((l) => l.command === "366");

    await t.step("TAGMSG between two clients through the server", async () => {
      await a.send("@+typing=active;+secret/tag=1 TAGMSG #chan");
      const up = await server.waitFor((l) => l.includes("TAGMSG #chan"));
      assert(up.startsWith("@"), up);
      assert(up.includes("+typing=active"), up);
      const seen = await b.waitFor((l) => l.command === "TAGMSG");
      assertEquals(seen.tags.get("+typing"), "active");
      assert(seen.prefix.startsWith("alice"), seen.raw);
      const echo = await a.waitFor((l) => l.command === "TAGMSG");
      assertEquals(echo.tags.get("+typing"), "active", "echoed to the sender (echo-message)");

      await server.send("@+typing=paused :bob!bob@host TAGMSG #chan");
      for (const c of [a, b]) {
        const l = await c.waitFor((l) => l.command === "TAGMSG" && l.prefix.startsWith("bob"));
        assertEquals(l.tags.get("+typing"), "paused");
      }
      await sync(plain, "after-tagmsg");
      assertEquals(got(plain, 0, "TAGMSG"), [], "not to a client without message-tags");
    });

    await t.step("CHGHOST and SETNAME from the server reach the clients that asked", async () => {
      await server.send(":bob!bob@host CHGHOST robert new.host");
      await server.send(":bob!robert@new.host SETNAME :Bob the Builder");
      const chghost = await a.waitFor((l) => l.command === "CHGHOST");
      assertEquals(chghost.params, ["robert", "new.host"]);
      const setname = await a.waitFor((l) => l.command === "SETNAME");
      assertEquals(setname.params, ["Bob the Builder"]);
      await sync(plain, "after-chghost");
      assertEquals(got(plain, 0, "CHGHOST", "SETNAME"), []);
    });

    await t.step("SETNAME, MONITOR, KNOCK go to the server; answers to the asker", async () => {
      await a.send("SETNAME :Alice Liddell");
      await server.waitFor((l) => l === "SETNAME :Alice Liddell");

      await a.send("MONITOR + bob");
      await server.waitFor((l) => l === "MONITOR + bob");
      await server.send(":irc.hostile.test 730 alice :bob!robert@new.host");
      await a.waitFor((l) => l.command === "730");

      const fromB = b.lines.length;
      await a.send("@label=m1 MONITOR L");
      await server.waitFor((l) => l === "MONITOR L");
      await server.send(":irc.hostile.test 732 alice :bob");
      await server.send(":irc.hostile.test 733 alice :End of MONITOR list");
      await a.waitFor((l) => l.command === "733");
      // Without batch, the label rides on the first line of the answer.
      assertEquals(a.lines.find((l) => l.command === "732")?.tags.get("label"), "m1");

      await a.send("KNOCK #closed :let me in");
      await server.waitFor((l) => l.startsWith("KNOCK #closed"));
      await server.send(":irc.hostile.test 711 alice #closed :Your KNOCK has been delivered.");
      await a.waitFor((l) => l.command === "711");

      await sync(b, "after-monitor");
      assertEquals(got(b, fromB, "732", "733", "711"), [], "the other client saw no answer");
    });

    await t.step("a JOIN forwarded elsewhere: its 470 to the asker, the JOIN to all", async () => {
      const [fromA, fromB] = [a.lines.length, b.lines.length];
      await a.send("JOIN #full");
      await server.waitFor((l) => l === "JOIN #full");
      await server.send(
        ":irc.hostile.test 470 alice #full #overflow :Forwarding to another channel",
      );
      await server.send(":alice!alice@host JOIN #overflow");
      await a.waitFor((l) => l.command === "470", fromA);
      await b.waitFor((l) => l.command === "JOIN" && l.params[0] === "#overflow", fromB);
      await a.waitFor((l) => l.command === "JOIN" && l.params[0] === "#overflow", fromA);
      await sync(b, "after-forward");
      assertEquals(got(b, fromB, "470"), [], "the other client saw the JOIN, not the 470");
    });
    for (const c of [a, b, plain]) c.close();
  } finally {
    await s.close();
    await irc.close();
  }
});

Deno.test("bouncer passthrough: a server with echo-message echoes TAGMSG; the sender's has its label", async () => {
  const irc = startHostileIrc({ caps: ["message-tags", "echo-message"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await server.waitFor((l) => l === "JOIN #chan");
    await server.send(":alice!alice@host JOIN #chan");
    await server.send(":irc.hostile.test 366 alice #chan :End of /NAMES list.");
    const user = `${EMAIL}/${s.cid}`;
    const caps = ["message-tags", "echo-message", "labeled-response"];
    const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, caps, "a");
    const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, ["message-tags"], "b");
    const quiet = await BouncerClient.attach(s.port, `${user}@q`, PASSWORD, ["message-tags"], "q");
    for (const c of [a, b, quiet]) await c.waitFor((l) => l.command === "366");
    try {
      await a.send("@label=t1;+draft/react=:) TAGMSG #chan");
      await quiet.send("@+typing=active TAGMSG #chan");
      await server.waitFor((l) => l.includes("+draft/react") && l.endsWith("TAGMSG #chan"));
      await server.waitFor((l) => l.includes("+typing=active") && l.endsWith("TAGMSG #chan"));
      await server.send("@+draft/react=:);msgid=m1 :alice!alice@host TAGMSG #chan");
      await server.send("@+typing=active;msgid=m2 :alice!alice@host TAGMSG #chan");
      const mine = await a.waitFor((l) => l.command === "TAGMSG" && l.tags.get("msgid") === "m1");
      assertEquals(mine.tags.get("label"), "t1", "the sender's echo carries its label");
      assertEquals(mine.tags.get("+draft/react"), ":)");
      for (const id of ["m1", "m2"]) {
        await b.waitFor((l) => l.command === "TAGMSG" && l.tags.get("msgid") === id);
      }
      await quiet.waitFor((l) => l.command === "TAGMSG" && l.tags.get("msgid") === "m1");
      await sync(quiet, "after-echo");
      assertEquals(
        got(quiet, 0, "TAGMSG").map((l) => l.tags.get("msgid")),
        ["m1"],
        "no echo of its own for a client without echo-message",
      );
      assertEquals(got(a, 0, "TAGMSG").filter((l) => l.tags.get("msgid") === "m1").length, 1);
    } finally {
      for (const c of [a, b, quiet]) c.close();
    }
  } finally {
    await s.close();
    await irc.close();
  }
});

Deno.test("bouncer passthrough: with labeled-response upstream, a query's answer is told by its label", async () => {
  const irc = startHostileIrc({ caps: ["labeled-response", "batch", "message-tags"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  const user = `${EMAIL}/${s.cid}`;
  const caps = ["labeled-response", "batch", "message-tags"];
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, caps, "a");
  const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, caps, "b");
  try {
    await sync(a, "ready");
    await sync(b, "ready");
    const upstreamLabel = async (command: string) => {
      const line = await server.waitFor((l) => l.startsWith("@label=") && l.includes(command));
      return /^@label=([^ ;]+)/.exec(line)![1];
    };

    await a.send("@label=w1 WHOIS bob");
    const w = await upstreamLabel("WHOIS bob");
    // Someone else's WHOIS answer first (the web client's), then the labeled one, with a line in
    // it no numeric table knows.
    await server.send(":irc.hostile.test 311 alice bob x y * :Not this one");
    await server.send(":irc.hostile.test 318 alice bob :End of WHOIS list");
    await server.send(`@label=${w} :irc.hostile.test BATCH +lr1 labeled-response`);
    await server.send("@batch=lr1 :irc.hostile.test 311 alice bob u h * :Bob");
    await server.send("@batch=lr1 :irc.hostile.test NOTICE alice :and a note");
    await server.send("@batch=lr1 :irc.hostile.test 318 alice bob :End of WHOIS list");
    await server.send(":irc.hostile.test BATCH -lr1");
    const open = await a.waitFor((l) => l.command === "BATCH" && l.tags.get("label") === "w1");
    const id = open.params[0].slice(1);
    await a.waitFor((l) => l.command === "BATCH" && l.params[0] === `-${id}`);
    const inside = a.lines.filter((l) => l.tags.get("batch") === id);
    assertEquals(inside.map((l) => l.command), ["311", "NOTICE", "318"]);
    assertEquals(inside[0].params.at(-1), "Bob");
    assert(!a.lines.some((l) => l.params.at(-1) === "Not this one"), "not someone else's");

    await a.send("@label=i1 ISON bob");
    const i = await upstreamLabel("ISON bob");
    await server.send(`@label=${i} :irc.hostile.test 303 alice :bob`);
    const ison = await a.waitFor((l) => l.command === "303");
    assertEquals(ison.tags.get("label"), "i1");

    await a.send("@label=m1 MOTD");
    const m = await upstreamLabel("MOTD");
    await server.send(`@label=${m} :irc.hostile.test ACK`);
    await a.waitFor((l) => l.command === "ACK" && l.tags.get("label") === "m1");

    await sync(b, "after");
    assertEquals(got(b, 0, "311", "318", "303", "NOTICE", "ACK"), [], "b saw none of it");
  } finally {
    a.close();
    b.close();
    await s.close();
    await irc.close();
  }
});
