/**
 * irc/identd.ts: the table of connections (held and forgotten, told apart by the server's
 * address, an IPv4 address on a dual-stack socket, a username reduced to what an ident may
 * carry), RFC 1413's answers, and the server on a real loopback socket with its bounds: a
 * question too long, one that never comes, and more askers at once than it answers.
 */
import { assertEquals } from "../../support/assert.ts";
import { poll } from "../../support/poll.ts";
import { identAnswer, IdentTable, serveIdent } from "../../../irc/identd.ts";

Deno.test("identd: the table of open connections", () => {
  const table = new IdentTable();
  const forget = table.hold("192.0.2.7", 40001, 6697, "alice");
  table.hold("198.51.100.9", 40001, 6697, "bob");
  table.hold("192.0.2.7", 40002, 6667, "c@rol!");
  table.hold("192.0.2.7", 40003, 6667, "!!!"); // nothing an ident may carry: not held
  assertEquals(table.size, 3);
  assertEquals(table.lookup("192.0.2.7", 40001, 6697), "alice");
  assertEquals(table.lookup("::ffff:192.0.2.7", 40001, 6697), "alice", "a dual-stack socket");
  assertEquals(table.lookup("198.51.100.9", 40001, 6697), "bob", "the same ports, another server");
  assertEquals(table.lookup("203.0.113.1", 40001, 6697), undefined, "not to a third server");
  assertEquals(table.lookup("192.0.2.7", 40002, 6667), "crol", "what an ident may carry");
  assertEquals(table.lookup("192.0.2.7", 40003, 6667), undefined);
  assertEquals(table.lookup("192.0.2.7", 40001, 6667), undefined, "the other port differs");
  forget();
  assertEquals(table.lookup("192.0.2.7", 40001, 6697), undefined);
  assertEquals(table.lookup("198.51.100.9", 40001, 6697), "bob");
  assertEquals(table.size, 2);
});

Deno.test("identd: answers as RFC 1413 words them", () => {
  const table = new IdentTable();
  table.hold("127.0.0.1", 40001, 6667, "alice");
  const ask = (q: string) => identAnswer(table, "127.0.0.1", q);
  assertEquals(ask("40001 , 6667"), "40001 , 6667 : USERID : UNIX : alice");
  assertEquals(ask(" 40001,6667 "), "40001 , 6667 : USERID : UNIX : alice");
  assertEquals(ask("40001 , 6668"), "40001 , 6668 : ERROR : NO-USER");
  assertEquals(ask("0 , 6667"), "0 , 6667 : ERROR : INVALID-PORT");
  assertEquals(ask("70000 , 6667"), "70000 , 6667 : ERROR : INVALID-PORT");
  assertEquals(ask("who is 40001?"), "0 , 0 : ERROR : INVALID-PORT");
  assertEquals(ask(""), "0 , 0 : ERROR : INVALID-PORT");
});

/** Sends `question` (as it is) to the server and reads until it closes. */
async function ask(port: number, question: string | undefined): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  if (question !== undefined) await conn.write(new TextEncoder().encode(question));
  let text = "";
  const buf = new Uint8Array(1024);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  try {
    conn.close();
  } catch { /* closed by the server */ }
  return text;
}

Deno.test("identd: the server on a socket, and its bounds", async () => {
  const table = new IdentTable();
  table.hold("127.0.0.1", 40001, 6667, "alice");
  const server = serveIdent(table, "127.0.0.1", 0, {
    questionMs: 1000,
    maxOpen: 2,
    holdWaitMs: 200,
  });
  try {
    assertEquals(
      await ask(server.port, "40001 , 6667\r\n"),
      "40001 , 6667 : USERID : UNIX : alice\r\n",
    );
    assertEquals(await ask(server.port, "40001 , 6668\n"), "40001 , 6668 : ERROR : NO-USER\r\n");
    // Asked before the connection is held (the socket's thread has not told of it yet): the
    // question waits for it.
    const early = ask(server.port, "40002 , 6667\n");
    await new Promise((r) => setTimeout(r, 50));
    const release = table.hold("127.0.0.1", 40002, 6667, "bob");
    assertEquals(await early, "40002 , 6667 : USERID : UNIX : bob\r\n");
    release();
    // A line past the bound is not read to its end: what was read is no question.
    assertEquals(await ask(server.port, "4".repeat(5000)), "0 , 0 : ERROR : INVALID-PORT\r\n");
    // One that never asks is closed unanswered (else this would wait for the test's end).
    assertEquals(await ask(server.port, undefined), "");
    // Two silent askers hold both places: a third is closed at once, unanswered.
    const silent = await Promise.all(
      [1, 2].map(() => Deno.connect({ hostname: "127.0.0.1", port: server.port })),
    );
    await poll(
      "a third asker turned away",
      async () => (await ask(server.port, "40001 , 6667\n")) === "",
    );
    for (const c of silent) c.close();
    await poll(
      "answered again",
      async () =>
        (await ask(server.port, "40001 , 6667\n")) === "40001 , 6667 : USERID : UNIX : alice\r\n",
    );
  } finally {
    await server.close();
  }
});
