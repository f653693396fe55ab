/**
 * A client's PING is answered as a server answers it: after Parley's own answers to the commands
 * before it, not after their lines have passed the server's flood control. A client whose lines
 * wait there (irssi resyncing thirty channels) otherwise sees minutes of lag, and at last leaves.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { poll } from "../support/poll.ts";

const LINES = 150;

Deno.test("bouncer: a PING behind lines waiting for flood control is answered at once", async () => {
  // Reading the client is not paced here: only the server's flood control holds the lines.
  const s = await setupBouncer({ lineBurst: 10_000, lineIntervalMs: 1 });
  const bob = await RawIrcClient.connect(s.ngircd.port, "bob");
  try {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "busy");
    await c.send("PING :ready");
    await c.waitFor((l) => l.command === "PONG" && l.params[1] === "ready");
    const said = (l: { command: string; params: string[] }) =>
      l.command === "PRIVMSG" && /^n\d+$/.test(l.params[1] ?? "");
    // 150 lines and a PING in one write: the send queue takes 20 at once, then one per 5 ms.
    const lines = Array.from({ length: LINES }, (_, i) => `PRIVMSG bob :n${i}\r\n`).join("");
    await c.sendBytes(new TextEncoder().encode(`${lines}PING :behind\r\n`));
    await c.waitFor((l) => l.command === "PONG" && l.params[1] === "behind");
    const atPong = bob.lines.filter(said).length;
    assert(atPong < LINES / 2, `the PONG waited for ${atPong} of ${LINES} lines to be written`);
    // Every line still goes out, in the client's order.
    await poll("all lines at bob", () => Promise.resolve(bob.lines.filter(said).length === LINES));
    assertEquals(
      bob.lines.filter(said).map((l) => l.params[1]),
      Array.from({ length: LINES }, (_, i) => `n${i}`),
    );
    c.close();
  } finally {
    await bob.close();
    await s.close();
  }
});
