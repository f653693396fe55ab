/**
 * The send queue of one IRC connection, in process against a small IRC server on loopback: the
 * last line of defence against injected lines.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { SendError } from "../../irc/engine/connection.ts";
import { bareConnection } from "../support/bare_connection.ts";
import { type IrcLine, ircLine } from "../../irc/protocol/message.ts";

Deno.test("the send queue refuses lines with CR, LF or NUL and never writes them", async () => {
  const irc = startHostileIrc();
  const { conn, registered } = bareConnection(`${irc.url}?nick=queue`);
  try {
    conn.connect();
    await registered;
    const client = await irc.registered();
    for (
      const line of ["PRIVMSG #x :a\r\nINJECTED", "PRIVMSG #x :a\nINJECTED", "PRIVMSG #x :a\0"]
    ) {
      // Only a forged line gets this far: irc/protocol/message.ts refuses to build one.
      const err = await conn.send(line as IrcLine).then(() => undefined, (e) => e);
      assert(err instanceof SendError, JSON.stringify(line));
    }
    await conn.send(ircLine("PRIVMSG", "#x", "fine"));
    await client.waitFor((l) => l === "PRIVMSG #x fine");
    assertEquals(client.lines.filter((l) => l.startsWith("PRIVMSG")), ["PRIVMSG #x fine"]);
    assert(!client.lines.some((l) => l.includes("INJECTED")));
  } finally {
    await conn.stop();
    conn.dispose();
    await irc.close();
  }
});
