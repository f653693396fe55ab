/**
 * A connection's one view of its server (irc/upstream_state.ts), in process against a small IRC
 * server on loopback: fed each line once, as the transport hands it over, and what the engine and
 * the Connection JSON read of ISUPPORT and the capabilities comes from it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { bareConnection } from "../support/bare_connection.ts";
import { REGISTRATION_COMMANDS } from "../../irc/engine/registration.ts";
import { connectionInfo } from "../../irc/resources.ts";

Deno.test("IRC: the connection's state sees every line once and answers ISUPPORT and caps", async () => {
  const irc = startHostileIrc({ caps: ["server-time", "echo-message"] });
  /** Lines the transport handed to the connection's sink. */
  let handed = 0;
  const { conn, registered } = bareConnection(`${irc.url}?nick=state`, {
    take: () => (handed++, false),
  });
  let seen = 0;
  const see = conn.upstream.see.bind(conn.upstream);
  conn.upstream.see = (m) => (seen++, see(m));
  try {
    conn.connect();
    await registered;
    const client = await irc.registered();
    await client.send(
      `:irc.hostile.test 005 ${client.nick} CHANTYPES=& PREFIX=(qo)~@ LINELEN=1024 MODES=5 ` +
        "CASEMAPPING=ascii NETWORK=Elsewhere :are supported",
    );
    for (let i = 0; i < 5; i++) await client.send(`:bob!b@h PRIVMSG ${client.nick} :hi ${i}`);
    await client.send(`:${client.nick}!u@cloak.test JOIN &here`);
    await poll("the JOIN seen", () => !!conn.upstream.channel("&here"));
    assertEquals(seen, handed, "the state sees each line the transport hands over, once");
    assert(seen >= 10, `${seen} lines`);
    assert(conn.isChannel("&here") && !conn.isChannel("#there"), "CHANTYPES from the state");
    assertEquals(conn.caseMapping, "ascii");
    assertEquals(conn.lineLimit, 1024);
    assertEquals(conn.upstream.modes, 5);
    assertEquals(conn.upstream.prefix.map((p) => p.symbol).join(""), "~@");
    assert(conn.echoes, "echo-message acknowledged");
    await poll("NETWORK in the connection's info", () => conn.info.network === "Elsewhere");
    assertEquals(connectionInfo(conn).capabilities, { "server-time": true, "echo-message": true });
    assertEquals(conn.upstream.source, `${client.nick}!u@cloak.test`);
  } finally {
    await conn.stop();
    conn.dispose();
    await irc.close();
  }
});

/**
 * A connection to `irc`, connected and registered, whose handlers take every line but those
 * registration reads, as Parley's do.
 */
async function connected(irc: ReturnType<typeof startHostileIrc>, nick: string) {
  const { conn, registered } = bareConnection(`${irc.url}?nick=${nick}`, {
    take: (m) => !REGISTRATION_COMMANDS.has(m.command),
  });
  conn.connect();
  await registered;
  return { conn, client: await irc.registered() };
}

Deno.test("IRC: NAMESX is asked for where the server has it and not multi-prefix", async () => {
  // Without multi-prefix: asked for once, after the ISUPPORT that offers it.
  const old = startHostileIrc({ isupport: "CHANTYPES=# NAMESX UHNAMES NETWORK=Older" });
  // With multi-prefix acknowledged: NAMES lists every mode already, nothing to ask.
  const modern = startHostileIrc({
    caps: ["multi-prefix"],
    isupport: "CHANTYPES=# NAMESX NETWORK=Newer",
  });
  const a = await connected(old, "older");
  const b = await connected(modern, "newer");
  try {
    await a.client.waitFor((l) => l === "PROTOCTL NAMESX");
    await poll("NETWORK in the connection's info", () => a.conn.info.network === "Older");
    await poll("NETWORK in the other's info", () => b.conn.info.network === "Newer");
    // A second ISUPPORT line does not ask again.
    await a.client.send(`:irc.hostile.test 005 older NAMESX :are supported`);
    await a.client.send(`:irc.hostile.test PING :after`);
    await a.client.waitFor((l) => l.startsWith("PONG"));
    await b.client.send(`:irc.hostile.test PING :after`);
    await b.client.waitFor((l) => l.startsWith("PONG"));
    assertEquals(a.client.lines.filter((l) => l.startsWith("PROTOCTL")), ["PROTOCTL NAMESX"]);
    assertEquals(b.client.lines.filter((l) => l.startsWith("PROTOCTL")), []);
  } finally {
    for (const { conn } of [a, b]) {
      await conn.stop();
      conn.dispose();
    }
    await old.close();
    await modern.close();
  }
});
