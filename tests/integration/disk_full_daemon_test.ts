/**
 * The daemon on a disk that fills up while IRC lines keep coming: it keeps running and answering,
 * holds the lines (one that needs a new conversation waits for room, with the lines behind it),
 * and stores every one once there is room; a write through the API is refused
 * as the disk's (503, whether the tables' executor or a statement of its own made it), and
 * nothing of it is kept. The data folder is on a small tmpfs of its own (mounting needs root, as
 * the test runner has on CI; the SQLite pass only: tests/integration/pg_failures_test.ts has
 * PostgreSQL's side).
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import type { RawIrcClient } from "../support/irc_client.ts";
import { inChannel } from "../support/in_channel.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { startServer } from "../support/server.ts";
import { poll } from "../support/poll.ts";
import { TEST_BACKEND } from "../support/test_backend.ts";
import { canMount, fillDisk, withSmallDisk } from "../support/small_disk.ts";

/** Copies the WAL into the database and cuts it to nothing (waiting out the daemon's readers). */
async function emptyWal(path: string): Promise<void> {
  const db = new DatabaseSync(path);
  try {
    await poll("the WAL emptied", () => {
      const row = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
      return row.busy === 0 && Deno.statSync(`${path}-wal`).size === 0;
    });
  } finally {
    db.close();
  }
}

Deno.test({
  name: "a disk that fills up: the daemon holds the lines, answers, and stores them all later",
  ignore: !canMount || TEST_BACKEND !== "sqlite",
  fn: () =>
    withSmallDisk("24m", async (mnt) => {
      const home = join(mnt, "home");
      await Deno.mkdir(home, { mode: 0o700 });
      const irc = await startIrcServer();
      const server = await startServer({ home });
      let bob: RawIrcClient | undefined;
      try {
        const joined = await inChannel(server.url, irc, "full@example.com", "#full");
        const { api, cid } = joined;
        bob = joined.bob;
        const messages = `/api/connection/${cid}/conversation/%23full/messages?limit=1`;
        const newest = async () => (await api.get(messages)).body.messages?.[0]?.message;
        await bob.send("PRIVMSG #full :before");
        await poll("the first line stored", async () => (await newest()) === "before");

        // SQLite refuses a write only when a file must grow: a WAL started over after a
        // checkpoint takes commits in the room it has (a small one, as the read marker's below,
        // long after a batch of lines is refused). Emptied first, every write must grow it.
        await emptyWal(join(home, "parley.db"));
        await fillDisk(join(mnt, "filler"));
        let during = 0;
        const refused = () => server.output().includes("the disk is full");
        for (let batch = 0; batch < 40 && !refused(); batch++) {
          for (let i = 0; i < 500; i++, during++) {
            await bob.send(`PRIVMSG #full :during ${during} ${"x".repeat(400)}`);
          }
          await poll("the batch handled", async () =>
            refused() || (await newest())?.startsWith(`during ${during - 1} `), 5_000).catch(
              () => {},
            );
        }
        await poll("the writer holding the lines", refused);
        // A write outside the tables' executor (the read marker) is refused the same way.
        const read = await api.post(`/api/connection/${cid}/conversation/%23full/read`);
        assertEquals([read.status, read.body.errors?.[0]?.message], [
          503,
          "The server's disk is full: nothing was saved. Try again later.",
        ]);
        const res = await api.get("/api/conversations");
        assertEquals(res.status, 200, "the daemon answers while the disk is full");
        // A write through the API is refused as such, not stored in part (a connection whose row
        // was returned but never committed made its channel's insert fail on the foreign key).
        const other = { url: `${irc.url}?nick=parley2`, conversation_id: "#other" };
        const made = await api.post("/api/connections", other);
        assertEquals([made.status, made.body.errors?.[0]?.message], [
          503,
          "The server's disk is full: nothing was saved. Try again later.",
        ]);

        // A line that needs a row of its own (a new private conversation) waits for room, and
        // the connection's later lines wait behind it, in order.
        await bob.send("PRIVMSG parley :a private word");
        await bob.send(`PRIVMSG #full :behind it ${"x".repeat(200)}`);
        await poll(
          "the private line waiting for room",
          () =>
            /waiting for room on the disk call=conversations\.ensure/.test(server.output()),
        );

        await Deno.remove(join(mnt, "filler"));
        assertEquals(
          (await api.post("/api/connections", other)).status,
          200,
          "with room it is made",
        );
        await bob.send("PRIVMSG #full :after");
        await poll("the last line stored", async () =>
          (await newest()) === "after", 30_000);
        const db = new DatabaseSync(join(home, "parley.db"), { readOnly: true });
        const said =
          (db.prepare("SELECT text FROM messages WHERE sender = 'bob' ORDER BY id").all() as {
            text: string;
          }[]).map((r) => r.text.split(" x")[0]);
        db.close();
        assertEquals(said, [
          "before",
          ...Array.from({ length: during }, (_, i) => `during ${i}`),
          "a private word",
          "behind it",
          "after",
        ]);
      } finally {
        await bob?.close();
        await server.close().catch(() => {});
        await irc.close();
      }
    }),
});
