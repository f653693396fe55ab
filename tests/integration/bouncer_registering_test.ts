/**
 * Clients that have not registered yet are bounded per address and over all, so a crowd of silent
 * sockets cannot lock everyone out: one address holds a few places (behind a trusted proxy, the
 * forwarded address, on `/socket` too), and past the bound over all addresses a newcomer takes the
 * place of the longest-waiting client of the address with the most, never of one logged in.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient, plain } from "../support/bouncer_client.ts";
import { openIrcSocket } from "../support/irc_websocket.ts";
import { poll } from "../support/poll.ts";
import { startBouncer } from "../../bouncer/mod.ts";

/** Answers a PING (served) or is closed (refused), whichever comes; true when served. */
async function served(c: BouncerClient): Promise<boolean> {
  await c.send("PING :served").catch(() => {});
  const what = await poll(
    "an answer or the end",
    () => c.lines.some((l) => l.command === "PONG") ? "served" : c.closed ? "closed" : undefined,
  );
  return what === "served";
}

const told = (c: BouncerClient, words: string) =>
  c.lines.some((l) => l.command === "ERROR" && l.params[0].includes(words));

Deno.test("bouncer: clients registering at once, per address and over all", async (t) => {
  const s = await setupBouncer({
    unregistered: 8,
    unregisteredPerAddress: 3,
    registerTimeoutMs: 60_000,
  });
  const clients: BouncerClient[] = [];
  const from = async (source: string) => {
    const c = await BouncerClient.connectFrom(s.port, source);
    clients.push(c);
    return c;
  };
  try {
    let crowd: BouncerClient[] = [];
    await t.step("one address holds 3 places; another address still logs in", async () => {
      for (let i = 0; i < 10; i++) crowd.push(await from("127.0.0.2"));
      const answers = [];
      for (const c of crowd) answers.push(await served(c));
      assertEquals(answers, [true, true, true, ...Array(7).fill(false)]);
      for (const c of crowd.slice(3)) assert(told(c, "Too many connections from your address"));
      crowd = crowd.slice(0, 3);
      const owner = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "owner");
      owner.close();
      await owner.waitClosed();
    });

    await t.step("past the bound over all, newcomers take silent clients' places", async () => {
      const others = [];
      for (const source of ["127.0.0.3", "127.0.0.3", "127.0.0.3", "127.0.0.4"]) {
        others.push(await from(source));
      }
      for (const c of others) assert(await served(c));
      // Logged in, not yet registered (no CAP END): it holds a place nobody takes.
      const half = await from("127.0.0.1");
      await half.send("CAP LS 302");
      await half.send("NICK n");
      await half.send("USER u 0 * :x");
      await half.send("CAP REQ :sasl");
      await half.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
      await half.send("AUTHENTICATE PLAIN");
      await half.waitFor((l) => l.command === "AUTHENTICATE");
      await half.send(`AUTHENTICATE ${plain(`${EMAIL}/${s.cid}@half`, PASSWORD)}`);
      await half.waitFor((l) => l.command === "903");
      const lone = await from("127.0.0.5"); // 3 + 3 + 1 + 1 waiting: the bound
      assert(await served(lone), "a newcomer is served");
      // The longest-waiting of the first address with the most (127.0.0.2) made room.
      await crowd[0].waitClosed();
      assert(told(crowd[0], "Too many clients registering"));
      assert(!crowd[1].closed && !crowd[2].closed && others.every((c) => !c.closed));
      // More newcomers, each from its own address: the silent ones go, the logged-in one stays.
      for (let i = 6; i < 14; i++) assert(await served(await from(`127.0.0.${i}`)));
      assert([...crowd, ...others].every((c) => c.closed));
      assert(!half.closed);
      await half.send("CAP END");
      assertEquals((await half.waitFor((l) => l.command === "001")).params[0], "alice");
    });
  } finally {
    for (const c of clients) c.close();
    await s.close();
  }
});

Deno.test("bouncer: /socket behind a trusted proxy counts the forwarded address", async () => {
  const app = await startApp({ PARLEY_REVERSE_PROXY: "1" });
  const bouncer = startBouncer(app.deps, {
    addresses: [{ tls: false, hostname: "127.0.0.1", port: 0 }],
    limits: { unregisteredPerAddress: 3, registerTimeoutMs: 60_000 },
  });
  app.deps.bouncer = bouncer;
  const http = await app.listen();
  const url = `ws://127.0.0.1:${http.port}/socket`;
  const sockets = [];
  try {
    const forwarded = (hops: string) => openIrcSocket(url, { "x-forwarded-for": hops });
    const answers = [];
    for (let i = 0; i < 5; i++) {
      // The hops before the proxy's own are the client's words: they change nothing.
      const ws = await forwarded(`10.0.0.${i}, 203.0.113.7`);
      sockets.push(ws);
      answers.push(await ws.served());
    }
    assertEquals(answers, [true, true, true, false, false]);
    const elsewhere = await forwarded("198.51.100.1");
    sockets.push(elsewhere);
    assert(await elsewhere.served(), "another forwarded address is served");
    // One IPv6 /64 is one address.
    const v6 = [];
    for (let i = 1; i <= 4; i++) v6.push(await forwarded(`2001:db8:1:2::${i}`));
    sockets.push(...v6);
    const v6answers = [];
    for (const ws of v6) v6answers.push(await ws.served());
    assertEquals(v6answers, [true, true, true, false]);
  } finally {
    for (const ws of sockets) ws.ws.close();
    await http.stop();
    await bouncer.close();
    await app.close();
  }
});
