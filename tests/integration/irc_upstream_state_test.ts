/**
 * A connection's one view of its server (irc/upstream_state.ts), in process against a small IRC
 * server on loopback: fed each line once, as the transport hands it over, and what the engine and
 * the Connection JSON read of ISUPPORT and the capabilities comes from it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { IrcConnection } from "../../irc/engine/connection.ts";
import { connectionInfo } from "../../irc/resources.ts";
import type { ConnectionRecord } from "../../store/connections.ts";

function record(url: string): ConnectionRecord {
  return {
    id: 1,
    userId: 1,
    connectionId: "irc-test",
    name: "test",
    url,
    onConnectCommands: [],
    wantedState: "connected",
    nick: "",
    certFingerprint: "",
    created: 0,
  };
}

Deno.test("IRC: the connection's state sees every line once and answers ISUPPORT and caps", async () => {
  const irc = startHostileIrc({ caps: ["server-time", "echo-message"] });
  let registered!: () => void;
  const ready = new Promise<void>((r) => (registered = r));
  /** Lines the transport handed to the connection's sink. */
  let handed = 0;
  const conn = new IrcConnection(record(`${irc.url}?nick=state`), {
    listener: {
      changed() {},
      attach: () => ({
        take: () => (handed++, false),
        handed() {},
        room: () => undefined,
        members: () => Promise.resolve(undefined),
        rejoining() {},
        released() {},
      }),
      registered: () => registered(),
      retry() {},
      gone() {},
    },
  });
  let seen = 0;
  const see = conn.upstream.see.bind(conn.upstream);
  conn.upstream.see = (m) => (seen++, see(m));
  try {
    conn.connect();
    await ready;
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
