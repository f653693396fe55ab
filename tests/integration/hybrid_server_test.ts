/**
 * The ircd-hybrid the scale benches can run on (SCALE_IRCD=hybrid): a real server where clients
 * talk in channels, and where hundreds of clients from 127.0.0.1 register at once, as Parley's
 * thousands of connections do, with none refused by a per-IP limit or throttle.
 */
import { lusersUsers } from "../../bench/scale_support.ts";
import { startHybridServer } from "../support/hybrid.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { assert, assertEquals } from "../support/assert.ts";

Deno.test("hybrid: two clients in a channel see each other's messages", async () => {
  const irc = await startHybridServer();
  const clients: RawIrcClient[] = [];
  try {
    assertEquals(irc.url, `irc://127.0.0.1:${irc.port}`);
    const alice = await RawIrcClient.connect(irc.port, "alice");
    const bob = await RawIrcClient.connect(irc.port, "bob");
    clients.push(alice, bob);
    await alice.join("#room");
    await bob.join("#room");
    await alice.waitForMember("#room", "bob");
    await alice.say("#room", "hello bob");
    await bob.say("#room", "hello alice");
    const toBob = await bob.waitFor((l) => l.command === "PRIVMSG" && l.nick === "alice");
    const toAlice = await alice.waitFor((l) => l.command === "PRIVMSG" && l.nick === "bob");
    assertEquals(toBob.params, ["#room", "hello bob"]);
    assertEquals(toAlice.params, ["#room", "hello alice"]);
  } finally {
    for (const c of clients) await c.close();
    await irc.close();
  }
});

Deno.test("hybrid: 300 clients from 127.0.0.1 register at once, and one can be in 150 channels", async () => {
  const irc = await startHybridServer();
  const clients: RawIrcClient[] = [];
  try {
    const settled = await Promise.allSettled(
      Array.from({ length: 300 }, (_, i) => RawIrcClient.connect(irc.port, `c${i}`)),
    );
    for (const s of settled) if (s.status === "fulfilled") clients.push(s.value);
    const refused = settled.flatMap((s) => s.status === "rejected" ? [String(s.reason)] : []);
    assertEquals(refused.slice(0, 3), [], `${refused.length} of 300 were not registered`);
    // Lines past a client's first few are parsed at once, not one a second.
    assert(
      clients[0].lines.some((l) => /exempt from flood protection/.test(l.params.at(-1) ?? "")),
      "hybrid does not exempt 127.0.0.1 from flood protection",
    );

    // Five channels in one line, as a bench connection joins them; and the bench's observer
    // sits in all its channels, 101 by default (hybrid's default allows 25).
    const watcher = clients[0];
    await clients[2].send("JOIN #a,#b,#c,#d,#e");
    await clients[2].waitFor((l) => l.command === "366" && l.params[1] === "#e");
    const channels = Array.from({ length: 150 }, (_, i) => `#ch${i}`);
    for (let i = 0; i < channels.length; i += 40) {
      await watcher.send(`JOIN ${channels.slice(i, i + 40).join(",")}`);
    }
    await watcher.waitFor((l) =>
      (l.command === "366" || l.command === "405") && l.params[1] === channels.at(-1)
    );
    const refusedJoins = watcher.lines.filter((l) => l.command === "405").map((l) => l.raw);
    assertEquals(refusedJoins, []);

    // The bench's observer counts registered clients from LUSERS: invisible ones count too.
    await clients[1].send("MODE c1 +i");
    await clients[1].waitFor((l) => l.command === "MODE" && l.params[1] === "+i");
    // Asked twice in a row, as the observer asks every half second: both answered.
    const from = watcher.lines.length; // its welcome had a 251 too
    await clients[3].send("LUSERS");
    await watcher.send("LUSERS");
    const line = await watcher.waitFor((l) =>
      ["251", "263"].includes(l.command) && watcher.lines.indexOf(l) >= from
    );
    assert(/1 invisible/.test(line.params.at(-1) ?? ""), line.raw);
    assertEquals(lusersUsers(line.params.at(-1) ?? ""), 300);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await irc.close();
  }
});
