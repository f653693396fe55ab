/**
 * The web client asks a channel's modes (`/mode`) each time it opens the channel: a joined
 * channel's are answered from what the server said after the join and since, without asking the
 * server again (each question took the query budget that a `/whois` waits on); and a `/whois`
 * waits for its answer from when it is written. Against a small IRC server on loopback that
 * counts the MODE lines it is sent.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { setupBouncerOn } from "../support/bouncer.ts";
import { answerJoin, startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import type { IrcManager } from "../../irc/manager.ts";
import { ircLine } from "../../irc/protocol/message.ts";

Deno.test("a joined channel's modes are answered from what the server said", async () => {
  const irc = startHostileIrc();
  const s = await setupBouncerOn(irc.url);
  const { app: a, cid } = s;
  try {
    const server = await irc.registered();
    const send = (message: string) => a.deps.irc.send(1, cid, "#chan", message);
    await a.deps.irc.send(1, cid, "", "/join #chan");
    await answerJoin(server);
    // Parley asks the modes after its join, once.
    await server.waitFor((l) => l === "MODE #chan");
    await server.send(":irc.hostile.test 324 alice #chan +nt");
    const record = (await a.deps.store.connections.get(1, cid))!;
    const conn = (a.deps.irc as IrcManager).live(record.id)!;
    await poll("the modes told", () => conn.upstream.channel("#chan")?.modes === "+nt");
    const asked = () => server.lines.filter((l) => l.startsWith("MODE #chan")).length;
    assertEquals(asked(), 1);

    for (let i = 0; i < 3; i++) assertEquals((await send("/mode")).modes, "+nt");
    // Changed by someone: followed, and still not asked.
    await server.send(":bob!bob@host MODE #chan +m");
    await poll("the change followed", () => /m/.test(conn.upstream.channel("#chan")?.modes ?? ""));
    const modes = String((await send("/mode")).modes);
    assert(/^\+[a-z]*m/.test(modes) && modes.includes("n") && modes.includes("t"), modes);
    // Every question sent would come before this PING's line at the server.
    await a.deps.irc.send(1, cid, "", "/quote PING :sync");
    await server.waitFor((l) => l === "PING sync" || l === "PING :sync");
    assertEquals(asked(), 1, server.lines.filter((l) => l.startsWith("MODE")).join(" | "));

    // A /whois behind a spent query budget (Parley's own questions, one a second once five went,
    // the whois among the ten that may wait there):
    // its answer's wait runs from when it is written, not from when it was asked.
    for (let i = 0; i < 12; i++) {
      // Unanswered, and dropped when the connection closes at the end.
      conn.send(ircLine("MODE", `#q${i}`), { query: true }).catch(() => {});
    }
    const whois = a.deps.irc.send(1, cid, "", "/whois bob");
    const written = Date.now();
    await server.waitFor((l) => l === "WHOIS bob", 30_000);
    assert(Date.now() - written > 5000, "the WHOIS did not wait behind the budget");
    await server.send(":irc.hostile.test 311 alice bob bob host * :Bob");
    await server.send(":irc.hostile.test 318 alice bob :End of WHOIS list");
    const answer = (await whois) as { whois?: { nick?: string; error?: string } };
    assertEquals([answer.whois?.nick, answer.whois?.error], ["bob", undefined]);
  } finally {
    await s.close();
    await irc.close();
  }
});
