/**
 * What goes to the server waits for the network's flood control. An attached client's queries (a
 * client's sync after it attaches asks a WHO and a MODE of every channel) wait behind what anyone
 * says, the client's own lines included, so a line typed meanwhile is not held minutes behind them. Against a scripted server that records what it is sent, with
 * the connection's flood control closed until the test opens it.
 */
import { assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { poll } from "../support/poll.ts";
import type { IrcManager } from "../../irc/manager.ts";

Deno.test("bouncer: a client's queries wait behind what anyone says", async () => {
  const irc = startHostileIrc();
  const s = await setupBouncerOn(irc.url);
  const server = irc.clients[0];
  const a = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@a`, PASSWORD, [], "a");
  try {
    const record = (await s.app.deps.store.connections.get(1, s.cid))!;
    const conn = (s.app.deps.irc as IrcManager).live(record.id)!;
    const from = server.lines.length;
    // No token: every line waits in the connection's queues.
    conn.setBurst(0);
    // The client's sync (a WHO and a MODE: its second query waits behind its first), then a line
    // it says, then one typed in the web client.
    await a.send("WHO #one");
    await a.send("MODE #two");
    await a.send("PRIVMSG bob :said by a");
    await poll("the client's lines queued", () => conn.queued === 2);
    const web = s.app.deps.irc.send(1, s.cid, "", "/quote PRIVMSG bob :typed meanwhile");
    await poll("the web's line queued", () => conn.queued === 3);
    conn.setBurst(20);
    await web;
    await server.waitFor((l) => l === "MODE #two");
    const sent = server.lines.slice(from).filter((l) => !l.startsWith("PONG"));
    assertEquals(sent, [
      "PRIVMSG bob :said by a",
      "PRIVMSG bob :typed meanwhile",
      "WHO #one",
      "MODE #two",
    ]);
    // Each answer still goes to the client that asked.
    const at = a.lines.length;
    await server.send(":irc.hostile.test 315 alice #one :End of WHO list");
    await server.send(":irc.hostile.test 324 alice #two +nt");
    await a.waitFor((l) => l.command === "324", at);
    assertEquals(a.lines.slice(at).map((l) => l.command), ["315", "324"]);
  } finally {
    a.close();
    await s.close();
    await irc.close();
  }
});
