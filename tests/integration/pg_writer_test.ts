/**
 * The PostgreSQL writer holds appends back when PostgreSQL falls behind, instead of keeping an
 * unbounded backlog in memory: here a lock holds every INSERT, appends stop being taken after
 * MAX_IN_FLIGHT batches (and the one gathering), and once the lock goes all of them are stored.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { seedChannel, startPostgres } from "../support/postgres.ts";
import { openPgMessageStore } from "../../store/pg/messages.ts";
import { connectPg } from "../../store/pg/db.ts";
import { BATCH, MAX_IN_FLIGHT, MAX_IN_FLIGHT_CHARS } from "../../store/pg/writer.ts";

Deno.test("PostgreSQL writer: a stalled database holds appends back; nothing is lost", async () => {
  const server = await startPostgres();
  const url = await server.database();
  const messages = await openPgMessageStore(url);
  const sql = connectPg(url, 2);
  let release = () => {};
  let locked: Promise<unknown> = Promise.resolve();
  try {
    const { userId, conversation } = await seedChannel(sql, "w");
    const total = (MAX_IN_FLIGHT + 4) * BATCH;
    let taken = 0;
    const released = new Promise<void>((r) => release = r);
    // Another session holds the table: every batch's INSERT waits on it.
    locked = sql.begin(async (tx) => {
      await tx`LOCK TABLE messages IN SHARE MODE`;
      await released;
    });
    await poll(
      "the lock taken",
      async () =>
        (await sql`SELECT 1 FROM pg_locks WHERE relation = 'messages'::regclass
        AND mode = 'ShareLock' AND granted`).length > 0,
    );
    const appends: Promise<unknown>[] = [];
    const t0 = Date.now() * 1000;
    for (let i = 0; i < total; i++) {
      appends.push(
        messages.append({
          conversation,
          userId,
          from: "nick",
          type: "private",
          text: `line ${i}`,
          ts: t0 + i,
        }).then(() => taken++),
      );
      // As IRC gives them: a few at a time, a turn of the event loop in between.
      if (i % 500 === 499) await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 1000));
    assert(
      taken <= (MAX_IN_FLIGHT + 1) * BATCH,
      `${taken} appends taken while ${MAX_IN_FLIGHT} batches could not be written`,
    );
    // Batches may be smaller than BATCH (the write window cuts them), never fewer than this.
    assert(taken >= MAX_IN_FLIGHT, `only ${taken} taken`);
    assert(taken < total, "every append was taken although nothing could be written");
    release();
    await locked;
    await Promise.all(appends);
    await messages.flush();
    assertEquals(taken, total);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM messages`;
    assertEquals(n, total);
  } finally {
    release();
    await locked;
    await messages.close();
    await sql.end();
    await server.close();
  }
});

Deno.test("PostgreSQL writer: one lane held while the other writes on; appends wait, then all are stored", async () => {
  const server = await startPostgres();
  const url = await server.database();
  // The migrations, by opening a store once.
  await (await openPgMessageStore(url)).close();
  const sql = connectPg(url, 2);
  let release = () => {};
  let locked: Promise<unknown> = Promise.resolve();
  let child: Deno.ChildProcess | undefined;
  try {
    const [{ id: userId }] = await sql`INSERT INTO users (email) VALUES ('l@example.com')
      RETURNING id`;
    const [{ id: connection }] = await sql`INSERT INTO connections (user_id, connection_id)
      VALUES (${userId}, 'irc-l') RETURNING id`;
    const [{ id: a }, { id: b }] = await sql`INSERT INTO conversations (connection, conversation_id)
      VALUES (${connection}, '#a'), (${connection}, '#b') RETURNING id`;
    // A's row locked: a message row of A (its key checked) waits for it, B's do not.
    const released = new Promise<void>((r) => release = r);
    let held!: () => void;
    const isHeld = new Promise<void>((r) => held = r);
    locked = sql.begin(async (tx) => {
      await tx`SELECT 1 FROM conversations WHERE id = ${a} FOR UPDATE`;
      held();
      await released;
    });
    await isHeld;
    const rows = (2 * MAX_IN_FLIGHT + 4) * BATCH;
    child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../support/pg_writer_lanes.ts", import.meta.url).pathname,
        url,
        String(userId),
        String(a),
        String(b),
        String(rows),
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // The batch holding A's row waits for the lock; the other lane writes on until the held
    // one has every batch in flight, then nothing more is written.
    await poll(
      "a batch waiting for A's row",
      async () =>
        (await sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
          AND query LIKE 'INSERT INTO messages%'`).length > 0,
      60_000,
    );
    const stored = async () => (await sql`SELECT count(*)::int AS n FROM messages`)[0].n;
    let last = -1;
    await poll("the other lane stopped", async () => {
      const now = await stored();
      const still = now === last;
      last = now;
      if (!still) await new Promise((r) => setTimeout(r, 300));
      return still;
    }, 60_000);
    assert(last < rows, "every row stored while one lane was held");
    release();
    await locked;
    // A writer that spun never comes back from that: its process is ended after a minute.
    const ended = setTimeout(() => child?.kill("SIGKILL"), 60_000);
    const out = await child.output();
    clearTimeout(ended);
    child = undefined;
    const said = new TextDecoder().decode(out.stdout);
    assert(said.includes("stored"), `the writer did not finish: ${said}`);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM messages`;
    assertEquals(n, rows + 1);
  } finally {
    release();
    await locked;
    try {
      child?.kill("SIGKILL");
      await child?.status;
    } catch { /* gone */ }
    await sql.end();
    await server.close();
  }
});

Deno.test("PostgreSQL writer: long lines held back by their size, not only by batches", async () => {
  const server = await startPostgres();
  const url = await server.database();
  const messages = await openPgMessageStore(url);
  const sql = connectPg(url, 2);
  let release = () => {};
  let locked: Promise<unknown> = Promise.resolve();
  try {
    const { userId, conversation } = await seedChannel(sql, "c");
    // Lines of 8,000 characters: the batches' count alone would let 16 of them, thousands of
    // lines and over a hundred megabytes, wait in memory.
    const LENGTH = 8000;
    const total = Math.ceil((MAX_IN_FLIGHT_CHARS * 3) / LENGTH);
    const long = "x".repeat(LENGTH - 10);
    const released = new Promise<void>((r) => release = r);
    locked = sql.begin(async (tx) => {
      await tx`LOCK TABLE messages IN SHARE MODE`;
      await released;
    });
    await poll(
      "the lock taken",
      async () =>
        (await sql`SELECT 1 FROM pg_locks WHERE relation = 'messages'::regclass
        AND mode = 'ShareLock' AND granted`).length > 0,
    );
    let taken = 0;
    const appends: Promise<unknown>[] = [];
    const t0 = Date.now() * 1000;
    for (let i = 0; i < total; i++) {
      appends.push(
        messages.append({
          conversation,
          userId,
          from: "nick",
          type: "private",
          text: `${String(i).padStart(9, "0")} ${long}`,
          ts: t0 + i,
        }).then(() => taken++),
      );
      if (i % 500 === 499) await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 1000));
    // What is in flight reaches the bound with its last batch; one more batch may gather.
    const most = Math.ceil(MAX_IN_FLIGHT_CHARS / LENGTH) + 2 * BATCH;
    assert(taken <= most, `${taken} lines of ${LENGTH} taken (at most ${most})`);
    assert(taken < total, "every append was taken although nothing could be written");
    release();
    await locked;
    await Promise.all(appends);
    await messages.flush();
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM messages`;
    assertEquals(n, total);
  } finally {
    release();
    await locked;
    await messages.close();
    await sql.end();
    await server.close();
  }
});
