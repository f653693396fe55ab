/**
 * An attached client's own chat line comes back to it (echo-message, with its label) by a handle,
 * never by its text: two clients saying the same words at once each get their own, and the web
 * client's line with those words takes nobody's label. Against a scripted server with
 * echo-message, which echoes what Parley sends (its tags too) when the test says so.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { type HostileClient, startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import { parseMessage } from "../../irc/protocol/message.ts";
import { sync } from "../support/spec_client.ts";

const CLIENT_CAPS = ["echo-message", "labeled-response", "batch", "message-tags"];

/** The scripted server and Parley connected to it, in #chan with alice; no client attached. */
async function inChannel(caps: string[]) {
  const irc = startHostileIrc({ caps });
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
  await server.waitFor((l) => l === "JOIN #chan");
  await server.send(":alice!alice@host JOIN #chan");
  await server.send(":irc.hostile.test 366 alice #chan :End of /NAMES list.");
  await poll("alice is in #chan", async () => {
    const r = await s.api.get("/api/conversations");
    return r.body.conversations.some((c: { name: string }) => c.name === "#chan");
  });
  return { irc, s, server };
}

/** The scripted server, Parley connected to it and in #chan, and two clients attached. */
async function setup(caps: string[]) {
  const { irc, s, server } = await inChannel(caps);
  const user = `${EMAIL}/${s.cid}`;
  const c = await BouncerClient.attach(s.port, `${user}@c`, PASSWORD, CLIENT_CAPS, "c");
  const t = await BouncerClient.attach(s.port, `${user}@t`, PASSWORD, CLIENT_CAPS, "t");
  for (const x of [c, t]) await x.waitFor((l) => l.command === "366");
  const close = async () => {
    c.close();
    t.close();
    await s.close();
    await irc.close();
  };
  return { s, server, c, t, close };
}

/** The lines Parley sent the server with these words, once there are `n`. */
async function upstream(server: HostileClient, words: string, n: number): Promise<string[]> {
  const said = () => server.lines.filter((l) => l.endsWith(`PRIVMSG #chan :${words}`));
  await poll(`${n} lines upstream`, () => said().length >= n);
  return said();
}

/** The server's echo of a line Parley sent: the same line, its tags kept, from alice. */
function echo(line: string, msgid: string): string {
  const m = parseMessage(line)!;
  const tags = [...m.tags].map(([k, v]) => `${k}=${v}`).concat(`msgid=${msgid}`).join(";");
  return `@${tags} :alice!alice@host PRIVMSG ${m.params[0]} :${m.params[1]}`;
}

/** The client's own line back, labeled (it asked with a label). */
function labeledOwn(x: BouncerClient, words: string, from: number) {
  return x.waitFor(
    (l) => l.command === "PRIVMSG" && l.params[1] === words && l.tags.has("label"),
    from,
  );
}

Deno.test("echo pairing: two clients send the same words at once, each gets its own label", async (t) => {
  // labeled-response upstream: the echoes carry Parley's labels, in whatever order they come.
  const x = await setup(["message-tags", "echo-message", "labeled-response", "batch"]);
  try {
    await t.step("with the server's labels, echoed in the other order", async () => {
      const [cFrom, tFrom] = [x.c.lines.length, x.t.lines.length];
      // Both lines written before either client reads anything.
      await Promise.all([
        x.c.send("@label=lc;+x=c PRIVMSG #chan :same words"),
        x.t.send("@label=lt;+x=t PRIVMSG #chan :same words"),
      ]);
      const up = await upstream(x.server, "same words", 2);
      const labels = up.map((l) => parseMessage(l)!.tags.get("label"));
      assert(labels.every((l) => !!l) && labels[0] !== labels[1], up.join(" | "));
      for (const [i, line] of [...up].reverse().entries()) {
        await x.server.send(echo(line, `srv-a${i}`));
      }
      const mine = await labeledOwn(x.c, "same words", cFrom);
      assertEquals([mine.tags.get("label"), mine.tags.get("+x")], ["lc", "c"], mine.raw);
      const theirs = await labeledOwn(x.t, "same words", tFrom);
      assertEquals([theirs.tags.get("label"), theirs.tags.get("+x")], ["lt", "t"], theirs.raw);
      await sync(x.c);
      await sync(x.t);
      for (const [y, from] of [[x.c, cFrom], [x.t, tFrom]] as const) {
        const copies = y.lines.slice(from).filter((l) => l.params[1] === "same words");
        assertEquals(copies.length, 2, `${y.name}: its own and the other's`);
        assertEquals(copies.filter((l) => l.tags.has("label")).length, 1, y.name);
      }
    });

    await t.step("the web client's line with those words takes no client's label", async () => {
      const from = x.c.lines.length;
      await x.c.send("@label=lw PRIVMSG #chan :hello there");
      const [own] = await upstream(x.server, "hello there", 1);
      await x.s.app.deps.irc.send(1, x.s.cid, "#chan", "hello there");
      const up = await upstream(x.server, "hello there", 2);
      // The web client's echo comes first: it is not the client's.
      await x.server.send(echo(up[1], "srv-web"));
      const web = await x.c.waitFor((l) => l.params[1] === "hello there", from);
      assertEquals(web.tags.get("label"), undefined, web.raw);
      await x.server.send(echo(own, "srv-own"));
      const mine = await labeledOwn(x.c, "hello there", from);
      assertEquals(mine.tags.get("label"), "lw");
      await sync(x.c);
      const copies = x.c.lines.slice(from).filter((l) => l.params[1] === "hello there");
      assertEquals(copies.map((l) => l.tags.get("label")), [undefined, "lw"]);
    });

    await t.step("a refused line's error goes to its sender alone, with its label", async () => {
      const [cFrom, tFrom] = [x.c.lines.length, x.t.lines.length];
      await x.c.send("@label=lr PRIVMSG #chan :refused words");
      const [line] = await upstream(x.server, "refused words", 1);
      const label = parseMessage(line)!.tags.get("label");
      await x.server.send(`@label=${label} :irc.hostile.test 404 alice #chan :Cannot send`);
      const error = await x.c.waitFor((l) => l.command === "404", cFrom);
      assertEquals(error.tags.get("label"), "lr");
      await sync(x.t);
      assertEquals(x.t.lines.slice(tFrom).filter((l) => l.command === "404"), []);
    });

    await t.step("a line to a channel not joined, sent as written, is told by order", async () => {
      const from = x.c.lines.length;
      await x.c.send("@label=lo PRIVMSG #elsewhere :outside words");
      const up = await x.server.waitFor((l) => l.endsWith("PRIVMSG #elsewhere :outside words"));
      assertEquals(parseMessage(up)!.tags.get("label"), undefined, up);
      await x.server.send(":alice!alice@host PRIVMSG #elsewhere :outside words");
      const mine = await x.c.waitFor((l) => l.params[1] === "outside words", from);
      assertEquals(mine.tags.get("label"), "lo", mine.raw);
    });
  } finally {
    await x.close();
  }
});

Deno.test("echo pairing: without labels upstream, the server's order tells whose echo it is", async () => {
  const x = await setup(["message-tags", "echo-message"]);
  try {
    const [cFrom, tFrom] = [x.c.lines.length, x.t.lines.length];
    await Promise.all([
      x.c.send("@label=lc;+x=c PRIVMSG #chan :same words"),
      x.t.send("@label=lt;+x=t PRIVMSG #chan :same words"),
    ]);
    const up = await upstream(x.server, "same words", 2);
    assert(up.every((l) => !parseMessage(l)!.tags.has("label")), up.join(" | "));
    for (const [i, line] of up.entries()) await x.server.send(echo(line, `srv-b${i}`));
    const mine = await labeledOwn(x.c, "same words", cFrom);
    assertEquals([mine.tags.get("label"), mine.tags.get("+x")], ["lc", "c"], mine.raw);
    const theirs = await labeledOwn(x.t, "same words", tFrom);
    assertEquals([theirs.tags.get("label"), theirs.tags.get("+x")], ["lt", "t"], theirs.raw);

    // A line the server refused has no echo to come: a later one with its words is not its.
    const from = x.c.lines.length;
    await x.c.send("@label=lg PRIVMSG #chan :gone words");
    await upstream(x.server, "gone words", 1);
    await x.server.send(":irc.hostile.test 404 alice #chan :Cannot send");
    await x.c.waitFor((l) => l.command === "404", from);
    await x.s.app.deps.irc.send(1, x.s.cid, "#chan", "gone words");
    const [, web] = await upstream(x.server, "gone words", 2);
    await x.server.send(echo(web, "srv-gone"));
    const seen = await x.c.waitFor((l) => l.params[1] === "gone words", from);
    assertEquals(seen.tags.get("label"), undefined, seen.raw);
  } finally {
    await x.close();
  }
});

Deno.test("echo pairing: without labels upstream, the web's line written first keeps its place", async () => {
  const x = await setup(["message-tags", "echo-message"]);
  try {
    const [cFrom, tFrom] = [x.c.lines.length, x.t.lines.length];
    // The web client's line is written first, then the client's, before the server echoes.
    await x.s.app.deps.irc.send(1, x.s.cid, "#chan", "web words");
    const [web] = await upstream(x.server, "web words", 1);
    await x.c.send("@label=lc PRIVMSG #chan :client words");
    const [own] = await upstream(x.server, "client words", 1);
    await x.server.send(echo(web, "srv-web1"));
    await x.server.send(echo(own, "srv-own1"));
    const mine = await labeledOwn(x.c, "client words", cFrom);
    assertEquals(mine.tags.get("label"), "lc", mine.raw);
    await sync(x.c);
    await sync(x.t);
    const seen = x.c.lines.slice(cFrom).filter((l) => l.command === "PRIVMSG");
    assertEquals(
      seen.map((l) => [l.params[1], l.tags.get("label")]),
      [["web words", undefined], ["client words", "lc"]],
    );
    // The other client sees both, once each, unlabeled.
    const other = x.t.lines.slice(tFrom).filter((l) => l.command === "PRIVMSG");
    assertEquals(
      other.map((l) => [l.params[1], l.tags.get("label")]),
      [["web words", undefined], ["client words", undefined]],
    );
  } finally {
    await x.close();
  }
});

Deno.test("echo pairing: a web line written before any client attached keeps its place", async () => {
  const { irc, s, server } = await inChannel(["message-tags", "echo-message"]);
  let c: BouncerClient | undefined;
  try {
    // The web client's line is written while no IRC client ever attached (no hub yet); the
    // server holds its echo until the client attached and wrote its own.
    await s.app.deps.irc.send(1, s.cid, "#chan", "early web words");
    const [web] = await upstream(server, "early web words", 1);
    c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@c`, PASSWORD, CLIENT_CAPS, "c");
    await c.waitFor((l) => l.command === "366");
    const from = c.lines.length;
    await c.send("@label=lc PRIVMSG #chan :client words");
    const [own] = await upstream(server, "client words", 1);
    await server.send(echo(web, "srv-early-web"));
    await server.send(echo(own, "srv-early-own"));
    await labeledOwn(c, "client words", from);
    await sync(c);
    const seen = c.lines.slice(from).filter((l) => l.command === "PRIVMSG");
    assertEquals(
      seen.map((l) => [l.params[1], l.tags.get("label")]),
      [["early web words", undefined], ["client words", "lc"]],
    );
  } finally {
    c?.close();
    await s.close();
    await irc.close();
  }
});
