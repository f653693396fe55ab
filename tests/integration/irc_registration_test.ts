/**
 * Registration as a connection does it (irc/engine/registration.ts through the connection's own
 * client), against a small IRC server on loopback: SASL PLAIN logs in before the greeting, a wrong
 * password stops the connection for good (a 464 once connected, OPER's, does not), a nick in use is
 * tried again with an underscore.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { bareConnection } from "../support/bare_connection.ts";
import { REGISTRATION_COMMANDS } from "../../irc/engine/registration.ts";

/** A connection whose handlers take every line but registration's, as Parley's do. */
function connection(url: string) {
  return bareConnection(url, { take: (m) => !REGISTRATION_COMMANDS.has(m.command) });
}

Deno.test("IRC registration: SASL PLAIN logs in before the greeting", async () => {
  const irc = startHostileIrc({
    caps: ["server-time"],
    sasl: { account: "jane", password: "pass word" },
  });
  const { conn, registered } = connection(
    `irc://jane:pass%20word@127.0.0.1:${irc.port}?sasl=plain&nick=jane`,
  );
  try {
    conn.connect();
    await registered;
    const client = await irc.registered();
    assertEquals(client.saslAccount, "jane");
    const lines = client.lines.filter((l) => /^(CAP|AUTHENTICATE|NICK|USER|PASS)/.test(l));
    assertEquals(lines.slice(0, 3), ["CAP LS 302", "NICK jane", "USER jane 0 * :Parley user"]);
    assertEquals(lines.slice(3), [
      "CAP REQ :server-time sasl",
      "AUTHENTICATE PLAIN",
      `AUTHENTICATE ${btoa("jane\0jane\0pass word")}`,
      "CAP END",
    ]);
    assert(!client.lines.some((l) => l.startsWith("PASS")), "the password went by SASL only");
    assertEquals(conn.state, "connected");
    assert(conn.upstream.capEnabled("sasl") && conn.upstream.capEnabled("server-time"));
  } finally {
    await conn.stop();
    conn.dispose();
    await irc.close();
  }
});

Deno.test("IRC registration: a refused SASL login stops the connection, without retries", async () => {
  const irc = startHostileIrc({ sasl: { account: "jane", password: "right" } });
  const { conn } = connection(`irc://jane:wrong@127.0.0.1:${irc.port}?sasl=plain&nick=jane`);
  try {
    conn.connect();
    await poll("the connection stopped", () => conn.state === "disconnected");
    assertEquals(conn.info.reason, "SASL authentication failed (fail).");
    assertEquals(conn.info.retry_in_ms, undefined, "no retry: the password will not get better");
    // Parley closed the socket itself, and tried once.
    await irc.clients[0].closed;
    assertEquals(irc.clients.length, 1);
  } finally {
    conn.dispose();
    await irc.close();
  }
});

Deno.test("IRC registration: a server without SASL refuses a connection that needs it", async () => {
  const irc = startHostileIrc({ caps: ["server-time"] });
  const { conn } = connection(`irc://jane:pw@127.0.0.1:${irc.port}?sasl=plain&nick=jane`);
  try {
    conn.connect();
    await poll("the connection stopped", () => conn.state === "disconnected");
    assertEquals(conn.info.reason, "SASL authentication failed (capability_missing).");
  } finally {
    conn.dispose();
    await irc.close();
  }
});

Deno.test("IRC registration: a nick in use is tried again with an underscore", async () => {
  const irc = startHostileIrc({ taken: ["alice"] });
  const { conn, registered } = connection(`${irc.url}?nick=alice`);
  try {
    conn.connect();
    await registered;
    const client = await irc.registered();
    assertEquals(client.nick, "alice_");
    assertEquals(conn.nick, "alice_");
    assertEquals(conn.wantedNick, "alice", "the wanted nick is kept, to regain");
    assertEquals(client.lines.filter((l) => l.startsWith("NICK")), ["NICK alice", "NICK alice_"]);
  } finally {
    await conn.stop();
    conn.dispose();
    await irc.close();
  }
});

Deno.test("IRC registration: a 464 once connected (OPER's wrong password) leaves reconnects on", async () => {
  const irc = startHostileIrc();
  const { conn, registered } = connection(`${irc.url}?nick=jane`);
  try {
    conn.connect();
    await registered;
    const client = await irc.registered();
    await client.send(":irc.hostile.test 464 jane :Password incorrect");
    // Answered in order: the PONG says the 464 was read.
    await client.send("PING :after-464");
    await client.waitFor((l) => l.startsWith("PONG") && l.includes("after-464"));
    // The server goes away: the connection is to try again, as after any drop.
    client.close();
    await poll("down", () => conn.state === "disconnected");
    assert(conn.info.reason !== "Bad password.", String(conn.info.reason));
    assert(typeof conn.info.retry_in_ms === "number", "a retry is planned");
  } finally {
    await conn.stop();
    conn.dispose();
    await irc.close();
  }
});
