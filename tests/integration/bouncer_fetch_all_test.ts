/**
 * A client that fetches every channel's history on attach (as gamja and Goguma do: `CHATHISTORY
 * LATEST <channel> * 50` for each of 100 channels) gets all 100 batches: CHATHISTORY is answered
 * here and costs a fraction of a line against the client's pacing. The pacing here lets 20 lines
 * through and then nothing for a minute, so a CHATHISTORY that cost a whole line would stall.
 */
import { assertEquals } from "../support/assert.ts";
import { EMAIL, PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { BouncerClient } from "../support/bouncer_client.ts";

const CAPS = ["batch", "server-time", "message-tags", "draft/chathistory"];
const CHANNELS = 100;

Deno.test("bouncer: 100 channels' CHATHISTORY on attach all arrive", async () => {
  const s = await setupBouncer({ lineBurst: 20, lineIntervalMs: 60_000 });
  let c: BouncerClient | undefined;
  try {
    const store = s.app.deps.store;
    const conn = (await store.connections.get(1, s.cid))!;
    const names = Array.from({ length: CHANNELS }, (_, i) => `#c${i}`);
    const base = Date.now() * 1000 - 60_000_000;
    for (const [i, name] of names.entries()) {
      const conv = await store.conversations.ensure(conn.id, name, name);
      for (let j = 0; j < 3; j++) {
        await store.messages.append({
          conversation: conv.id,
          userId: 1,
          from: "bob",
          type: "private",
          text: `${name} line ${j}`,
          ts: base + (i * 3 + j) * 1000,
        });
      }
    }
    c = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@gamja`, PASSWORD, CAPS);
    const at = c.lines.length;
    await c.send(names.map((n) => `CHATHISTORY LATEST ${n} * 50`).join("\r\n"));
    await c.send("PING :done");
    await c.waitFor((l) => l.command === "PONG" && l.params[1] === "done", at);
    const batches = new Map<string, string>();
    for (const l of c.lines.slice(at)) {
      if (l.command === "BATCH" && l.params[0].startsWith("+")) {
        batches.set(l.params[0].slice(1), l.params[2]);
      }
    }
    assertEquals([...batches.values()], names);
    for (const [id, name] of batches) {
      const texts: string[] = c!.lines.filter((l) => l.tags.get("batch") === id).map((l) =>
        l.params[1]
      );
      assertEquals(texts, [0, 1, 2].map((j) => `${name} line ${j}`));
    }
  } finally {
    c?.close();
    await s.close();
  }
});
