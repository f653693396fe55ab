/**
 * What the scale bench (bench/irc_scale.ts) measures with: the count of stored fan-out rows that
 * reads only what was committed since its last look, and the observer on a real ngircd that notes
 * when each connection came to be in all its channels.
 */
import { DatabaseSync } from "node:sqlite";
import { IrcObserver, type ScaleShape, StoredRows } from "../../bench/scale_support.ts";
import { openStore } from "../../store/mod.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";

Deno.test("scale bench: stored rows are the sender's lines in the watched conversations, each counted once", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-scale-rows-" });
  const store = await openStore(home); // the real schema
  await store.close();
  const db = new DatabaseSync(`${home}/parley.db`);
  const reader = new DatabaseSync(`${home}/parley.db`, { readOnly: true });
  try {
    // Rows of conversations that are not there: only the counting is under test.
    db.exec("PRAGMA foreign_keys = OFF");
    const insert = db.prepare(
      "INSERT INTO messages (id, conversation, user_id, ts, type, highlight, sender, text) " +
        "VALUES (?, ?, 1, ?, ?, 0, ?, 'x')",
    );
    let id = 1;
    const add = (conversation: number, sender = "fanbot", type = 0) =>
      insert.run(id++, conversation, id, type, sender);
    add(1); // before the counter: not counted
    const rows = new StoredRows(reader, [1, 2], "fanbot");
    assertEquals(rows.poll(), 0);

    add(1);
    add(2);
    add(2, "fanbot", 2); // an action is a line too
    add(3); // another conversation
    add(1, "someone"); // another sender
    add(2, "fanbot", 5); // an event, not a line
    assertEquals(rows.poll(), 3);
    assertEquals(rows.poll(), 3, "a poll with nothing new adds nothing");

    for (let i = 0; i < 4; i++) add(1);
    assertEquals(rows.poll(), 7);
    add(2);
    add(2);
    assertEquals(rows.poll(), 9);

    // From the count 0 up to 9: the first poll that saw any (3 rows, stored before it) to the
    // poll that saw 9; 6 rows in between.
    const all = rows.phase(0, 9);
    assert(all.lastAt > all.firstAt);
    assertEquals(Math.round(all.rowsPerS * (all.lastAt - all.firstAt) / 1000), 6);
    // A phase that never reached its end runs to the last change seen.
    const short = rows.phase(3, 100);
    assertEquals(short.lastAt, all.lastAt);
    assertEquals(Math.round(short.rowsPerS * (short.lastAt - short.firstAt) / 1000), 2);
    assert(Number.isNaN(rows.phase(9, 20).rowsPerS), "no row after 9: no figure");
  } finally {
    reader.close();
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("scale bench: the observer has a connection on IRC once it is in all its channels, and again from its return", async () => {
  const irc = await startIrcServer();
  // One connection, u0c0, in #ch0, #ch1 and the fan-out's channel.
  const shape: ScaleShape = { users: 1, perUser: 1, channels: 2, joins: 2, fanout: 1 };
  const observer = await IrcObserver.connect(irc.port, shape, {
    ignore: [],
    waitMs: 10_000,
    debug: false,
  });
  const client = await RawIrcClient.connect(irc.port, "u0c0");
  const seen = (ch: string, there = true) =>
    poll(
      `u0c0 ${there ? "in" : "out of"} ${ch}`,
      () => observer.names().get(ch)?.has("u0c0") === there,
    );
  try {
    await client.join("#ch0");
    await client.join("#ch1");
    await seen("#ch1");
    assertEquals(observer.onIrcAt("u0c0"), undefined, "not yet in #fan");

    await client.join("#fan");
    await seen("#fan");
    const first = observer.onIrcAt("u0c0");
    assert(first !== undefined, "in all three channels");
    const figures = observer.onIrcFigures(() => first - 1500);
    assertEquals([figures.p50, figures.max, figures.slowest], [1.5, 1.5, "u0c0"]);

    await client.send("PART #ch0");
    await seen("#ch0", false);
    assertEquals(observer.onIrcAt("u0c0"), undefined, "out of #ch0");
    assertEquals(observer.onIrcFigures(() => 0).max, Infinity);

    await client.join("#ch0");
    await seen("#ch0");
    const back = observer.onIrcAt("u0c0");
    assert(back !== undefined && back > first, "on IRC again, from its return");

    await client.close();
    await poll("u0c0's quit seen", () => !observer.names().get("#fan")?.has("u0c0"));
    assertEquals(observer.onIrcAt("u0c0"), undefined, "gone");
  } finally {
    await client.close();
    await observer.close();
    await irc.close();
  }
});
