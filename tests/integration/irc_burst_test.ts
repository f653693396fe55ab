// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * A burst larger than the socket buffers arrives whole. ngircd keeps 32 KiB for a
 * client and the kernel ~4 MB; a reader that falls further behind is dropped, with every line
 * still in flight. 40,000 lines are 4.9 MB: Parley has to read them off the socket faster than it
 * stores them, and store every one.
 *
 * @test-alone: whether Parley keeps up depends on the CPU it gets; scripts/test.ts runs this file
 * after the parallel pass, by itself.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { Flooder, floodText } from "../support/flood.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startServer } from "../support/server.ts";

const LINES = 40_000;

Deno.test("IRC: a burst larger than the socket buffers is stored whole, without a drop", async () => {
  const irc = await startIrcServer();
  const server = await startServer({ env: { PARLEY_TEST_FAST_IRC: "1" } });
  const { user } = await adminAndUser(server.url);
  let flooder: Flooder | undefined;
  // Sees Parley join; gone before the flood (it would be dropped as a slow reader itself).
  const watcher = await RawIrcClient.connect(irc.port, "watcher");
  try {
    await watcher.join("#burst");
    const res = await user.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#burst",
    });
    assertEquals(res.status, 200, JSON.stringify(res.body));
    const id = res.body.connection_id;
    const channel = (id: string) =>
      user.get("/api/conversations").then((r) =>
        r.body.conversations.find((c: any) =>
          c.connection_id === id && c.conversation_id === "#burst"
        )
      );
    await watcher.waitFor((l) => l.command === "JOIN" && l.nick === "alice");
    await watcher.close();
    flooder = await Flooder.connect(irc.port, "flooder", "#burst");
    await flooder.send(LINES);

    const last = floodText(LINES - 1);
    const outcome = await poll("the last line stored, or a drop", async () => {
      if (irc.output().includes("Write buffer space exhausted")) return "dropped";
      const page = await user.get(`/api/connection/${id}/conversation/%23burst/messages?limit=1`);
      return page.body.messages?.[0]?.message === last ? "stored" : undefined;
    }, 120_000);
    assertEquals(outcome, "stored", "ngircd dropped Parley: the burst was not read fast enough");
    assert(!server.output().includes("irc disconnected"), "the connection stayed up");

    // Each counted unread, and every line stored once, in order (read once Parley has stopped).
    assertEquals((await channel(id)).unread, LINES);
    await server.stop();
    const db = new DatabaseSync(join(server.home, "parley.db"), { readOnly: true });
    try {
      const rows = db.prepare(
        // Type 0 (a message): the flooder's JOIN is kept in history too, as a channel event.
        "SELECT text FROM messages WHERE sender = 'flooder' AND type = 0 ORDER BY ts",
      ).all() as { text: string }[];
      assertEquals(rows.length, LINES);
      const wrong = rows.findIndex((r, i) => r.text !== floodText(i));
      assertEquals(wrong, -1, `line ${wrong} is not where it belongs`);
    } finally {
      db.close();
    }
  } finally {
    flooder?.close();
    await watcher.close();
    await server.close();
    await irc.close();
  }
});
