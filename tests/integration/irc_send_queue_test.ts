/**
 * The send queue of one IRC connection, in process against a small IRC server on loopback: the
 * last line of defence against injected lines.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { IrcConnection, SendError } from "../../irc/engine/connection.ts";
import { type IrcLine, ircLine } from "../../irc/protocol/message.ts";
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

Deno.test("the send queue refuses lines with CR, LF or NUL and never writes them", async () => {
  const irc = startHostileIrc();
  let registered!: () => void;
  const ready = new Promise<void>((r) => (registered = r));
  const conn = new IrcConnection(record(`${irc.url}?nick=queue`), {
    listener: {
      changed() {},
      attach: () => ({
        take: () => false,
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
  try {
    conn.connect();
    await ready;
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
