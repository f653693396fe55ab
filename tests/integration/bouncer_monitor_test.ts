/**
 * MONITOR per client: two IRC clients on one connection each keep their own list, the server
 * watches the union, a status reaches only the clients that watch that nick, one client's `C`
 * leaves the other's list alone, and the union is asked again after the server reconnects.
 * Against a small server on loopback that keeps MONITOR lists as a server does.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";

/** Waits until everything the bouncer sent a client before now has arrived (PING, then PONG). */
async function sync(c: BouncerClient, token: string): Promise<void> {
  await c.send(`PING :${token}`);
  await c.waitFor((l) => l.command === "PONG" && l.params[1] === token);
}

/** The MONITOR numerics a client got since `from`, as `code params`. */
const told = (c: BouncerClient, from: number): string[] =>
  c.lines.slice(from).filter((l: Received) => /^73[0-4]$/.test(l.command)).map((l) =>
    `${l.command} ${l.params.slice(1).join(" ")}`
  );

/** A client's MONITOR list as the bouncer answers `MONITOR L`: each 732's targets. */
async function listed(c: BouncerClient): Promise<string[]> {
  const from = c.lines.length;
  await c.send("MONITOR L");
  await c.waitFor((l) => l.command === "733", from);
  return c.lines.slice(from).filter((l) => l.command === "732").map((l) => l.params[1]);
}

Deno.test("bouncer MONITOR: a list per client, statuses to its watchers, asked again after a reconnect", async (t) => {
  const irc = startHostileIrc({ monitor: { limit: 4 } });
  const s = await setupBouncerOn(irc.url);
  let server = await irc.registered();
  const user = `${EMAIL}/${s.cid}`;
  const labels = ["labeled-response", "batch"];
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, labels, "a");
  const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, [], "b");
  try {
    await irc.presence("bob", "bob!bob@bob.host");

    await t.step(
      "a client's nicks are asked of the server; the answers are that client's",
      async () => {
        const fromB = b.lines.length;
        await a.send("MONITOR + bob,carol");
        await server.waitFor((l) => l === "MONITOR + bob,carol");
        await a.waitFor((l) => l.command === "731");
        assertEquals(told(a, 0), ["730 bob!bob@bob.host", "731 carol"]);
        await sync(b, "b1");
        assertEquals(told(b, fromB), [], "the other client watches nothing");
      },
    );

    await t.step("a nick watched already is answered at once; only new ones go up", async () => {
      const fromA = a.lines.length;
      const sent = server.lines.length;
      await b.send("MONITOR + BOB,dave");
      await b.waitFor((l) => l.command === "731");
      assertEquals(told(b, 0), ["730 bob!bob@bob.host", "731 dave"]);
      await poll("dave asked", () => server.lines.slice(sent).includes("MONITOR + dave"));
      assertEquals(
        server.lines.slice(sent).filter((l) => l.startsWith("MONITOR")),
        ["MONITOR + dave"],
        "bob is not asked twice",
      );
      await sync(a, "a1");
      assertEquals(told(a, fromA), []);
    });

    await t.step("each client lists its own nicks (MONITOR L, S)", async () => {
      const fromA = a.lines.length;
      await a.send("@label=l1 MONITOR L");
      await a.waitFor((l) => l.command === "733", fromA);
      const list = a.lines.slice(fromA).filter((l) => l.command === "732");
      assertEquals(list.map((l) => l.params[1]), ["bob,carol"]);
      const batch = a.lines.slice(fromA).find((l) => l.command === "BATCH");
      assertEquals(batch?.tags.get("label"), "l1", "the answer is the labeled command's");
      assertEquals(list[0].tags.get("batch"), batch?.params[0].slice(1));
      const fromB = b.lines.length;
      assertEquals(await listed(b), ["BOB,dave"]);
      await b.send("MONITOR S");
      await sync(b, "b2");
      assertEquals(told(b, fromB), [
        "732 BOB,dave",
        "733 End of MONITOR list",
        "730 bob!bob@bob.host",
        "731 dave",
      ]);
    });

    await t.step("a status goes to the clients that watch that nick", async () => {
      const fromA = a.lines.length;
      const fromB = b.lines.length;
      await irc.presence("carol", "carol!c@carol.host");
      await a.waitFor((l) => l.command === "730", fromA);
      await irc.presence("bob", undefined);
      await a.waitFor((l) => l.command === "731", fromA);
      await b.waitFor((l) => l.command === "731", fromB);
      await sync(b, "b3");
      assertEquals(told(a, fromA), ["730 carol!c@carol.host", "731 bob"]);
      assertEquals(told(b, fromB), ["731 bob"], "b does not watch carol");
    });

    await t.step("one client's MONITOR C leaves the other's list", async () => {
      const sent = server.lines.length;
      await a.send("MONITOR C");
      await poll("carol forgotten", () => server.lines.slice(sent).includes("MONITOR - carol"));
      assertEquals(irc.watching(server), ["bob", "dave"]);
      assertEquals(await listed(b), ["BOB,dave"]);
    });

    await t.step(
      "past the server's limit, a client is told which nicks were not added",
      async () => {
        const fromB = b.lines.length;
        await b.send("MONITOR + erin,frank,gina");
        await b.waitFor((l) => l.command === "734", fromB);
        const full = b.lines.slice(fromB).find((l) => l.command === "734")!;
        assertEquals(full.params.slice(1, 3), ["4", "gina"]);
        await poll("erin and frank asked", () => irc.watching(server).length === 4);
        assertEquals(irc.watching(server), ["bob", "dave", "erin", "frank"]);
      },
    );

    await t.step(
      "after the server reconnects, it is asked for the clients' nicks again",
      async () => {
        const fromB = b.lines.length;
        server.close();
        server = await irc.registered();
        await poll("the list asked again", () => irc.watching(server).length === 4);
        assertEquals(irc.watching(server), ["bob", "dave", "erin", "frank"]);
        await irc.presence("dave", "dave!d@dave.host");
        await b.waitFor((l) => l.command === "730" && l.params[1] === "dave!d@dave.host", fromB);
      },
    );

    await t.step("a client that leaves takes its nicks off the server's list", async () => {
      const sent = server.lines.length;
      b.close();
      await poll("b's nicks forgotten", () => irc.watching(server).length === 0);
      assert(server.lines.slice(sent).some((l) => l.startsWith("MONITOR - ")));
    });
  } finally {
    a.close();
    b.close();
    await s.close();
    await irc.close();
  }
});

Deno.test("bouncer extended-monitor: news of a watched person outside the user's channels goes to its watchers", async () => {
  const irc = startHostileIrc({
    monitor: { limit: 10 },
    caps: ["extended-monitor", "away-notify", "setname"],
  });
  const s = await setupBouncerOn(irc.url);
  const server = await irc.registered();
  const user = `${EMAIL}/${s.cid}`;
  const caps = ["away-notify", "setname"];
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, [
    ...caps,
    "extended-monitor",
  ], "a");
  const b = await BouncerClient.attach(s.port, `${user}@b`, PASSWORD, caps, "b");
  const c = await BouncerClient.attach(s.port, `${user}@c`, PASSWORD, [
    ...caps,
    "draft/extended-monitor",
  ], "c");
  try {
    await poll(
      "extended-monitor asked of the server",
      () => server.lines.some((l) => l.startsWith("CAP REQ") && l.includes("extended-monitor")),
    );
    await s.app.deps.irc.send(1, s.cid, "", "/join #chan");
    await answerJoin(server);
    for (const x of [a, b, c]) await x.waitFor((l) => l.command === "366");

    for (const x of [a, b]) await x.send("MONITOR + zed,bob");
    await poll("both asked", () => irc.watching(server).length === 2);
    const from = [a, b, c].map((x) => x.lines.length);
    // zed shares no channel with the user: only a watching client with the capability hears.
    await server.send(":zed!z@zed.host AWAY :gone fishing");
    await server.send(":zed!z@zed.host SETNAME :Zed Zebra");
    // bob is in #chan: every client with away-notify hears, as without MONITOR.
    await server.send(":bob!b@bob.host AWAY :lunch");
    for (const x of [a, b, c]) {
      await x.waitFor((l) => l.command === "AWAY" && l.prefix.startsWith("bob"));
    }
    for (const x of [a, b, c]) await sync(x, "news");
    const news = (x: BouncerClient, i: number) =>
      x.lines.slice(from[i]).filter((l) => l.command === "AWAY" || l.command === "SETNAME").map(
        (l) => `${l.prefix.split("!")[0]} ${l.command} ${l.params.join(" ")}`,
      );
    assertEquals(news(a, 0), ["zed AWAY gone fishing", "zed SETNAME Zed Zebra", "bob AWAY lunch"]);
    assertEquals(news(b, 1), ["bob AWAY lunch"], "b did not take extended-monitor");
    assertEquals(news(c, 2), ["bob AWAY lunch"], "c does not watch zed");
  } finally {
    for (const x of [a, b, c]) x.close();
    await s.close();
    await irc.close();
  }
});
