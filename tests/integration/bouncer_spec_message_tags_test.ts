/**
 * message-tags, sentence by sentence, against the listener on a scripted server that has
 * message-tags (so that client tags can reach it and come back). docs/bouncer.md lists each MUST
 * and SHOULD with the step that tests it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { got, sync } from "../support/spec_client.ts";

/** The tag section of a raw line, as written (`@` and the space left out). */
const tagsOf = (raw: string) => raw.startsWith("@") ? raw.slice(1, raw.indexOf(" ")) : "";

Deno.test("spec message-tags: client tags relayed as they are, server tags first, bounds", async (t) => {
  const irc = startHostileIrc({ caps: ["message-tags", "server-time"] });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  const user = `${EMAIL}/${s.cid}`;
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await answerJoin(server);
    await poll("alice is in #chan", async () => {
      const r = await s.api.get("/api/conversations");
      return r.body.conversations.some((c: { name: string }) => c.name === "#chan");
    });
    const caps = ["message-tags", "server-time", "batch"];
    const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, caps, "a");
    const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, caps, "b");
    const plain = await BouncerClient.attach(s.port, `${user}@p`, PASSWORD, [], "plain");
    for (const c of [a, b, plain]) await c.waitFor((l) => l.command === "366");

    await t.step(
      "a client's TAGMSG: client-only tags as they are, others removed (MUST)",
      async () => {
        const from = server.lines.length;
        await a.send("@+example/one=a\\sb\\:c;+flag;server-tag=x;time=1999 TAGMSG #chan");
        const up = await server.waitFor((l) =>
          server.lines.indexOf(l) >= from && l.endsWith("TAGMSG #chan")
        );
        const tags = tagsOf(up).split(";").sort();
        assertEquals(tags, ["+example/one=a\\sb\\:c", "+flag"], up);
        const seen = await b.waitFor((l) => l.command === "TAGMSG" && l.prefix.startsWith("alice"));
        assertEquals(seen.tags.get("+example/one"), "a b;c");
        assert(tagsOf(seen.raw).split(";").includes("+flag"), `no '=' added: ${seen.raw}`);
        assert(!seen.tags.has("server-tag"), seen.raw);
      },
    );

    await t.step("a repeated key: only the last occurrence counts (SHOULD)", async () => {
      const from = server.lines.length;
      await a.send("@+dup=1;+dup=2 TAGMSG #chan");
      const up = await server.waitFor((l) =>
        server.lines.indexOf(l) >= from && l.includes("+dup") && l.endsWith("TAGMSG #chan")
      );
      assertEquals(tagsOf(up), "+dup=2");
    });

    await t.step(
      "escapes: a lone \\ at the end gives nothing, an unknown escape its letter",
      async () => {
        const from = server.lines.length;
        await a.send("@+esc=a\\b\\ TAGMSG #chan");
        const up = await server.waitFor((l) =>
          server.lines.indexOf(l) >= from && l.includes("+esc") && l.endsWith("TAGMSG #chan")
        );
        assertEquals(tagsOf(up), "+esc=ab");
      },
    );

    await t.step("the server's client-only tags reach clients on TAGMSG (MUST)", async () => {
      await server.send("@msgid=s1;+example/tm=3 :bob!bob@host TAGMSG #chan");
      const tm = await a.waitFor((l) => l.command === "TAGMSG" && l.prefix.startsWith("bob"));
      assertEquals(tm.tags.get("+example/tm"), "3", tm.raw);
    });

    await t.step("server tags before client-only tags (MUST)", () => {
      const tm = a.lines.find((l) => l.command === "TAGMSG" && l.prefix.startsWith("bob"))!;
      const names = tagsOf(tm.raw).split(";").map((t) => t.split("=")[0]);
      const firstClient = names.findIndex((n) => n.startsWith("+"));
      assert(firstClient > 0, tm.raw);
      assert(names.slice(firstClient).every((n) => n.startsWith("+")), tm.raw);
    });

    await t.step({
      name: "the server's client-only tags reach clients on PRIVMSG and NOTICE (MUST)",
      fn: async () => {
        await server.send("@+example/pm=1 :bob!bob@host PRIVMSG #chan :tagged");
        await server.send("@+example/no=2 :bob!bob@host NOTICE #chan :tagged notice");
        const pm = await a.waitFor((l) => l.command === "PRIVMSG" && l.params[1] === "tagged");
        assertEquals(pm.tags.get("+example/pm"), "1", pm.raw);
        const notice = await a.waitFor((l) =>
          l.command === "NOTICE" && l.params[1] === "tagged notice"
        );
        assertEquals(notice.tags.get("+example/no"), "2", notice.raw);
      },
    });

    await t.step({
      name: "a client's PRIVMSG keeps its client-only tags to the server (MUST)",
      fn: async () => {
        const from = server.lines.length;
        await a.send("@+example/x=1 PRIVMSG #chan :with a tag");
        const up = await server.waitFor((l) =>
          server.lines.indexOf(l) >= from && l.endsWith("PRIVMSG #chan :with a tag")
        );
        assertEquals(tagsOf(up), "+example/x=1");
        const seen = await b.waitFor((l) =>
          l.command === "PRIVMSG" && l.params[1] === "with a tag"
        );
        assertEquals(seen.tags.get("+example/x"), "1");
      },
    });

    await t.step(
      "no TAGMSG, and no tags, for a client without message-tags (MUST NOT)",
      async () => {
        await sync(plain);
        assertEquals(got(plain, 0, "TAGMSG"), []);
        assert(plain.lines.every((l) => !l.raw.startsWith("@")), "no tags at all");
      },
    );

    await t.step("more than 4094 bytes of client tag data: 417, not truncated (MUST)", async () => {
      const from = a.lines.length;
      const upFrom = server.lines.length;
      await a.send(`@+big=${"x".repeat(4100)} TAGMSG #chan`);
      const err = await a.waitFor((l) => l.command === "417", from);
      assertEquals(err.prefix, "parley");
      await sync(a);
      assert(
        !server.lines.slice(upFrom).some((l) => l.includes("+big")),
        "nothing of it reached the server",
      );
      // At the bound it passes.
      const fit = `+fit=${"y".repeat(4094 - 5)}`;
      await a.send(`@${fit} TAGMSG #chan`);
      const up = await server.waitFor((l) => l.includes("+fit="));
      assertEquals(tagsOf(up), fit);
    });
    for (const c of [a, b, plain]) c.close();
  } finally {
    await s.close();
    await irc.close();
  }
});
