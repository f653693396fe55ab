/**
 * no-implicit-names (and its draft name): a client that took it gets no NAMES (353, 366) after a
 * JOIN, neither in the attach burst nor live, and its read marker still comes after the JOIN;
 * NAMES it asks for is answered as usual; a client without it still gets them. Real ngircd, real
 * listener, raw clients.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";

Deno.test("bouncer: no-implicit-names", async (t) => {
  const s = await setupBouncer();
  const clients: BouncerClient[] = [];
  const attach = async (name: string, caps: string[]) => {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@${name}`, PASSWORD, caps);
    clients.push(c);
    return c;
  };
  /** The lines since `from` until Parley's PONG to a PING sent now (all the burst has by then). */
  const upToPong = async (c: BouncerClient, from: number, token: string) => {
    await c.send(`PING ${token}`);
    const pong = await c.waitFor((l) => l.command === "PONG" && l.params.at(-1) === token, from);
    return c.lines.slice(from, c.lines.indexOf(pong));
  };
  const names = (lines: Received[], channel: string) =>
    lines.filter((l) =>
      (l.command === "353" && l.params[2] === channel) ||
      (l.command === "366" && l.params[1] === channel)
    ).map((l) => l.command);
  try {
    await s.app.deps.irc.send(1, s.cid, "", "/join #burst");
    const plain = await attach("plain", []);
    await plain.waitFor((l) => l.command === "366" && l.params[1] === "#burst");

    await t.step("offered under both names", () => {
      const ls = plain.lines.filter((l) => l.command === "CAP" && l.params[1] === "LS");
      const offered = ls.flatMap((l) => l.params.at(-1)!.split(" "));
      assert(offered.includes("no-implicit-names"), offered.join(" "));
      assert(offered.includes("draft/no-implicit-names"), offered.join(" "));
    });

    let quiet: BouncerClient;
    await t.step("the attach burst: the JOIN and the read marker, no names", async () => {
      quiet = await attach("quiet", ["no-implicit-names", "draft/read-marker"]);
      const burst = await upToPong(quiet, 0, "burst");
      const join = burst.findIndex((l) => l.command === "JOIN" && l.params[0] === "#burst");
      const marker = burst.findIndex((l) => l.command === "MARKREAD" && l.params[0] === "#burst");
      assert(join >= 0, burst.map((l) => l.raw).join("\n"));
      assert(marker > join, burst.map((l) => l.raw).join("\n"));
      assertEquals(names(burst, "#burst"), []);
    });

    await t.step("a live JOIN: names to the plain client only", async () => {
      const [q, p] = [quiet.lines.length, plain.lines.length];
      await quiet.send("JOIN #live");
      await plain.waitFor((l) => l.command === "366" && l.params[1] === "#live", p);
      assertEquals(names(plain.lines.slice(p), "#live"), ["353", "366"]);
      // The plain client's 366 went out in the same turn as anything the quiet one was sent.
      const seen = await upToPong(quiet, q, "live");
      assert(seen.some((l) => l.command === "JOIN" && l.params[0] === "#live"), "the JOIN");
      assertEquals(names(seen, "#live"), []);
    });

    await t.step("NAMES asked for is answered", async () => {
      const from = quiet.lines.length;
      await quiet.send("NAMES #live");
      await quiet.waitFor((l) => l.command === "366" && l.params[1] === "#live", from);
      assertEquals(names(quiet.lines.slice(from), "#live"), ["353", "366"]);
    });

    await t.step("the draft name does the same", async () => {
      const draft = await attach("draft", ["draft/no-implicit-names"]);
      const burst = await upToPong(draft, 0, "draft");
      assert(burst.some((l) => l.command === "JOIN" && l.params[0] === "#live"), "the JOIN");
      assertEquals(names(burst, "#live"), []);
      assertEquals(names(burst, "#burst"), []);
    });
  } finally {
    for (const c of clients) c.close();
    await s.close();
  }
});
