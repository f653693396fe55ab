/**
 * The send queue of one IRC connection, in process against a small IRC server on loopback: the
 * last line of defence against injected lines, and the order its queues write in.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type HostileClient, startHostileIrc } from "../support/hostile_irc.ts";
import { type IrcConnection, SendError } from "../../irc/engine/connection.ts";
import { bareConnection } from "../support/bare_connection.ts";
import { type IrcLine, ircLine } from "../../irc/protocol/message.ts";

/** Runs `test` with a registered connection and the server's side of it (`lines`, `waitFor`). */
async function withQueue(
  test: (conn: IrcConnection, client: HostileClient) => Promise<void>,
): Promise<void> {
  const irc = startHostileIrc();
  const { conn, registered } = bareConnection(`${irc.url}?nick=queue`);
  try {
    conn.connect();
    await registered;
    await test(conn, await irc.registered());
  } finally {
    await conn.stop();
    conn.dispose();
    await irc.close();
  }
}

Deno.test("the send queue refuses lines with CR, LF or NUL and never writes them", async () => {
  await withQueue(async (conn, client) => {
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
  });
});

Deno.test("the send queue writes clients' queries last, but one in five while lines keep waiting", async () => {
  await withQueue(async (conn, client) => {
    const from = client.lines.length;
    // No token: everything waits until the test gives some.
    conn.setBurst(0);
    const sent = [conn.send(ircLine("WHO", "#q"), { background: true })];
    for (let i = 1; i <= 7; i++) sent.push(conn.send(ircLine("PRIVMSG", "#x", `line ${i}`)));
    conn.setBurst(20);
    sent.push(conn.send(ircLine("PRIVMSG", "#x", "line 8")));
    await Promise.all(sent);
    await client.waitFor((l) => l === "PRIVMSG #x :line 8");
    const order = client.lines.slice(from).filter((l) => /^(WHO|PRIVMSG) /.test(l))
      .map((l) => l.startsWith("WHO") ? "WHO" : l.slice(l.lastIndexOf(" ") + 1));
    assertEquals(order, ["1", "2", "3", "4", "WHO", "5", "6", "7", "8"]);
  });
});

Deno.test("a line told as written has the line it returns written right after it", async () => {
  await withQueue(async (conn, client) => {
    const from = client.lines.length;
    // Both wait for tokens, then go out in one turn: each one's PING must follow it at once.
    conn.setBurst(0);
    const fenced = (topic: string, token: string) =>
      conn.send(ircLine("HELP", topic), {
        background: true,
        written: () => ircLine("PING", token),
      });
    const sent = [fenced("PRIVMSG", "a"), fenced("JOIN", "b")];
    conn.setBurst(20);
    sent.push(conn.send(ircLine("PRIVMSG", "#x", "after")));
    await Promise.all(sent);
    await client.waitFor((l) => l === "PING b");
    assertEquals(
      client.lines.slice(from).filter((l) => /^(HELP|PING|PRIVMSG) /.test(l)),
      ["PRIVMSG #x after", "HELP PRIVMSG", "PING a", "HELP JOIN", "PING b"],
    );
  });
});
