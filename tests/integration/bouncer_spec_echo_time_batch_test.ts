/**
 * echo-message, server-time and batch, sentence by sentence, against the listener on a real
 * ngircd (and a scripted server for a batch of the server's). docs/bouncer.md lists each MUST and
 * SHOULD with the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { batchErrors, got, labeled, sync } from "../support/spec_client.ts";

const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

Deno.test("spec echo-message, server-time, batch: against ngircd", async (t) => {
  const s = await setupBouncer();
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  const user = `${EMAIL}/${s.cid}`;
  await s.app.deps.irc.send(1, s.cid, "", "/join #ech");
  await bob.join("#ech");
  await bob.waitForMember("#ech", "alice");
  for (let i = 0; i < 3; i++) await bob.say("#ech", `before ${i}`);
  const echo = ["echo-message", "server-time", "message-tags", "batch", "labeled-response"];
  const e = await BouncerClient.attach(s.port, `${user}@e`, PASSWORD, echo, "e");
  const noEcho = await BouncerClient.attach(s.port, `${user}@n`, PASSWORD, ["server-time"], "n");
  // A client without chathistory but with batch: its replay comes in batches.
  const replayed = await BouncerClient.attach(s.port, `${user}@r`, PASSWORD, [
    "batch",
    "server-time",
    "labeled-response",
    "draft/chathistory",
  ], "r");
  try {
    for (const c of [e, noEcho, replayed]) await c.waitFor((l) => l.command === "366");

    await t.step("echo-message: PRIVMSG and NOTICE come back to the sender (MUST)", async () => {
      const from = e.lines.length;
      await e.send("PRIVMSG #ech :echo me");
      await e.send("NOTICE #ech :echo this notice");
      await e.send("PRIVMSG #ech :\x01ACTION waves\x01");
      const pm = await e.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "echo me", from);
      assert(pm.prefix.startsWith("alice"), pm.raw);
      assert(pm.tags.get("msgid"), "with its msgid");
      await e.waitFor((l) => l.command === "NOTICE" && l.params[1] === "echo this notice", from);
      await e.waitFor(
        (l) => l.command === "PRIVMSG" && l.params[1] === "\x01ACTION waves\x01",
        from,
      );
      await bob.waitFor((l) => l.command === "NOTICE" && l.params[1] === "echo this notice");
    });

    await t.step("echo-message: the final version, as the server got it (MUST)", async () => {
      const from = e.lines.length;
      // As long as a client's line may be: Parley's line to the server is longer (its prefix).
      const long = Array.from({ length: 80 }, (_, i) => `w${String(i).padStart(3, "0")}`).join(" ")
        .padEnd(490, "!");
      const bobFrom = bob.lines.length;
      await e.send(`PRIVMSG #ech :${long}`);
      await poll(
        "all of it reached bob",
        () =>
          bob.lines.slice(bobFrom).filter((l) => l.command === "PRIVMSG").map((l) => l.params[1])
            .join(" ") === long,
      );
      const sent = bob.lines.slice(bobFrom).filter((l) => l.command === "PRIVMSG").map((l) =>
        l.params[1]
      );
      assert(sent.length > 1, `split to fit the server's lines: ${sent.length}`);
      await poll("every part echoed", () => got(e, from, "PRIVMSG").length >= sent.length);
      assertEquals(got(e, from, "PRIVMSG").map((l) => l.params[1]), sent);
    });

    await t.step("echo-message: none to a client that did not ask for it", async () => {
      const from = noEcho.lines.length;
      await noEcho.send("PRIVMSG #ech :no echo for me");
      await bob.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "no echo for me");
      await e.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "no echo for me");
      await sync(noEcho);
      assertEquals(got(noEcho, from, "PRIVMSG"), []);
    });

    await t.step("server-time: the time tag in its one format (MUST)", () => {
      const timed = e.lines.filter((l) => l.tags.has("time"));
      assert(timed.length > 5);
      for (const l of timed) assert(STAMP.test(l.tags.get("time")!), l.raw);
    });

    await t.step(
      "server-time: none before CAP ACK, none without the capability (MUST NOT)",
      async () => {
        const c = await BouncerClient.connect(s.port);
        await c.send("CAP LS 302");
        await c.send("NICK x");
        await c.send("USER u 0 * :U");
        const ls = await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
        await c.send("CAP REQ :server-time");
        const ack = await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
        const before = c.lines.slice(0, c.lines.indexOf(ack) + 1);
        assert(before.every((l) => !l.tags.has("time")), ls.raw);
        c.close();
        const plain = await BouncerClient.attach(s.port, `${user}@plain`, PASSWORD, []);
        await bob.say("#ech", "untimed");
        await plain.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "untimed");
        assert(plain.lines.every((l) => !l.raw.startsWith("@")), "no tags at all");
        plain.close();
      },
    );

    await t.step("server-time: echo-message is offered beside it (SHOULD)", async () => {
      const c = await BouncerClient.connect(s.port);
      await c.send("CAP LS 302");
      const ls = await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS");
      const words = ls.params.at(-1)!.split(" ");
      assert(words.includes("server-time") && words.includes("echo-message"));
      c.close();
    });

    await t.step(
      "batch: the replay on attach, CHATHISTORY and labeled answers obey it",
      async () => {
        await labeled(replayed, "b1", "WHOIS bob");
        await labeled(replayed, "b2", "CHATHISTORY LATEST #ech * 5");
        await labeled(replayed, "b3", "CHATHISTORY LATEST #nothing * 5");
        const fresh = await BouncerClient.attach(s.port, `${user}@fresh`, PASSWORD, ["batch"]);
        await fresh.waitFor((l) => l.command === "366");
        await sync(fresh);
        assert(fresh.lines.some((l) => l.command === "BATCH"), "a replay batch");
        for (const c of [e, noEcho, replayed, fresh]) {
          await sync(c);
          assertEquals(batchErrors(c.lines), [], c.name);
        }
        assert(replayed.lines.filter((l) => l.command === "BATCH").length >= 6);
        assertEquals(noEcho.lines.filter((l) => l.command === "BATCH" || l.tags.has("batch")), []);
        fresh.close();
      },
    );
  } finally {
    for (const c of [e, noEcho, replayed]) c.close();
    await bob.close();
    await s.close();
  }
});

Deno.test("spec batch: a batch of the server's reaches clients whole, or unwrapped", async () => {
  const irc = startHostileIrc({ caps: ["batch", "message-tags", "server-time"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  const user = `${EMAIL}/${s.cid}`;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #split");
    await server.waitFor((l) => l === "JOIN #split");
    await server.send(":alice!alice@host JOIN #split");
    await server.send(":irc.hostile.test 353 alice = #split :alice bob carol");
    await server.send(":irc.hostile.test 366 alice #split :End of /NAMES list.");
    const withBatch = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, ["batch"], "b");
    const without = await BouncerClient.attach(s.port, `${user}@n`, PASSWORD, [], "n");
    for (const c of [withBatch, without]) await c.waitFor((l) => l.command === "366");
    await server.send(":irc.hostile.test BATCH +ns1 netsplit irc.a irc.b");
    await server.send("@batch=ns1 :bob!b@h QUIT :irc.a irc.b");
    await server.send("@batch=ns1 :carol!c@h QUIT :irc.a irc.b");
    await server.send(":irc.hostile.test BATCH -ns1");
    await server.send(":irc.hostile.test NOTICE alice :after the split");
    for (const c of [withBatch, without]) {
      await c.waitFor((l) => l.command === "NOTICE" && l.params[1] === "after the split");
      assertEquals(got(c, 0, "QUIT").length, 2, c.name);
      assertEquals(batchErrors(c.lines), [], c.name);
    }
    const start = withBatch.lines.find((l) => l.command === "BATCH");
    assertEquals(start?.params[1], "netsplit");
    for (const q of got(withBatch, 0, "QUIT")) assert(q.tags.has("batch"), q.raw);
    assertEquals(got(without, 0, "BATCH"), []);
    for (const q of got(without, 0, "QUIT")) assert(!q.tags.has("batch"), q.raw);
    withBatch.close();
    without.close();
  } finally {
    await s.close();
    await irc.close();
  }
});
