/**
 * What only the server's lines carry (away-notify, extended-join...) is offered to an IRC client
 * only while the connection's server has it on: a client told of changes (cap-notify) gets
 * `CAP DEL` after its burst when the server lacks them, and `CAP NEW` once a server that has them
 * registers. A scripted server, whose offer changes between two registrations.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncerOn } from "../support/bouncer.ts";
import { BouncerClient, type Received } from "../support/bouncer_client.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";

Deno.test("bouncer: capabilities only the server carries follow the server (CAP DEL, CAP NEW)", async () => {
  // Read at each registration: what the server offers changes between the two.
  const offered: string[] = [];
  const irc = startHostileIrc({ caps: offered });
  const s = await setupBouncerOn(irc.url);
  const first = await irc.registered();
  const user = `${EMAIL}/${s.cid}`;
  const a = await BouncerClient.attach(s.port, `${user}@a`, PASSWORD, ["away-notify"], "a");
  try {
    const capLine = (sub: string, from = 0) =>
      a.waitFor((l: Received) => l.command === "CAP" && l.params[1] === sub, from);
    const del = await capLine("DEL");
    const withdrawn = del.params[2].split(" ");
    for (const cap of ["away-notify", "extended-join", "account-notify", "chghost"]) {
      assert(withdrawn.includes(cap), `${cap} withdrawn: ${del.raw}`);
    }
    assert(!withdrawn.includes("server-time"), "Parley gives server-time itself");
    let from = a.lines.length;
    await a.send("CAP LIST");
    assert(!(await capLine("LIST", from)).params[2].includes("away-notify"), "turned off");
    await a.send("CAP REQ :away-notify");
    await capLine("NAK", from);

    // The server registers again, now with away-notify: offered again, and it carries AWAY.
    offered.push("away-notify");
    from = a.lines.length;
    first.close();
    const second = await irc.registered();
    const news = await capLine("NEW", from);
    assertEquals(news.params[2], "away-notify");
    await a.send("CAP REQ :away-notify");
    await capLine("ACK", from);
    await second.send(":bob!b@bob.host AWAY :lunch");
    const away = await a.waitFor((l) => l.command === "AWAY", from);
    assertEquals(away.params, ["lunch"]);
  } finally {
    a.close();
    await s.close();
    await irc.close();
  }
});
