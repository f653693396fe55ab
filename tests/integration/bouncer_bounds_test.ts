/**
 * What an attached client sends is bounded: an oversized line is refused with 417 and the client
 * goes on; a flood is read at the client's pace and nothing of it is lost; a client that sends
 * garbage has no effect on the user's other clients.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { MAX_LINE_BYTES } from "../../bouncer/transport.ts";

Deno.test("bouncer: oversized lines, floods and garbage", async (t) => {
  const s = await setupBouncer({ lineBurst: 5, lineIntervalMs: 2 });
  try {
    const c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "noisy");
    const other = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}`, PASSWORD, [], "calm");

    await t.step("a line over 512 + 8191 bytes: 417, then the next line is read", async () => {
      await c.send(`PRIVMSG #x :${"a".repeat(MAX_LINE_BYTES + 10)}`);
      await c.send(`@${"t=" + "b".repeat(9000)} PING :tagged`); // tags past their bound
      await c.send("PING :still-here");
      await c.waitFor((l) => l.command === "PONG" && l.params[1] === "still-here");
      assertEquals(c.lines.filter((l) => l.command === "417").length, 2);
      assert(!c.lines.some((l) => l.command === "PONG" && l.params[1] === "tagged"));
    });

    await t.step("a line of the largest size is taken", async () => {
      // message-tags: a client's tag data is at most 4094 bytes.
      const tags = `@label=${"c".repeat(4094 - 6)} `;
      await c.send(`${tags}PING :${"d".repeat(400)}`);
      await c.waitFor((l) => l.command === "PONG" && l.params[1] === "d".repeat(400));
    });

    await t.step("a flood is paced, and every line is answered in order", async () => {
      const lines = Array.from({ length: 300 }, (_, i) => `PING :n${i}\r\n`).join("");
      await c.sendBytes(new TextEncoder().encode(lines));
      await c.waitFor((l) => l.command === "PONG" && l.params[1] === "n299");
      const pongs = c.lines.filter((l) => l.command === "PONG" && /^n\d+$/.test(l.params[1]));
      assertEquals(pongs.map((l) => l.params[1]), Array.from({ length: 300 }, (_, i) => `n${i}`));
    });

    await t.step("garbage: empty lines, bare tags, NUL, odd commands", async () => {
      await c.sendBytes(new TextEncoder().encode("\r\n\r\n@a=b\r\n:only.prefix\r\nPRIVMSG\r\n"));
      await c.send("PRIVMSG #parley :a\0b");
      await c.send("JOIN :#with space");
      await c.send("CAP FROB");
      await c.send("PING :after-garbage");
      await c.waitFor((l) => l.command === "PONG" && l.params[1] === "after-garbage");
      assert(c.lines.some((l) => l.command === "461"), "PRIVMSG without parameters: 461");
      assert(c.lines.some((l) => l.command === "410"), "CAP FROB: 410");
      // The other client saw none of it, and still works.
      await other.send("PING :calm");
      await other.waitFor((l) => l.command === "PONG" && l.params[1] === "calm");
      assert(!other.lines.some((l) => ["417", "461", "410", "400", "404"].includes(l.command)));
    });
    c.close();
    other.close();
  } finally {
    await s.close();
  }
});
