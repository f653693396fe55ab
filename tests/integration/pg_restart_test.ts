// deno-lint-ignore-file no-explicit-any -- API answers are read field by field
/**
 * PostgreSQL restarted under a flood (`pg_ctl restart -m fast`, which ends every session): the
 * batches that cannot be written meanwhile are kept and written once the database answers again,
 * and the connection's reading waits for them; no line is lost, none stored twice.
 *
 * @test-alone: the node keeps running its users for 5 s while it takes their locks again; on a
 * machine busy with the parallel pass, a restart slower than that would stop them (by design).
 */
import { assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { Flooder, floodText } from "../support/flood.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { startPostgres } from "../support/postgres.ts";
import { diagnose, startServer } from "../support/server.ts";
import postgres from "postgres";

/** Lines sent before the restart, and in chunks while it runs. */
const BEFORE = 2000;
const CHUNK = 100;

Deno.test("PostgreSQL restarted during a flood: every line is stored once", async () => {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const url = await pg.database();
  const server = await startServer({
    env: { PARLEY_DATABASE_URL: url, PARLEY_TEST_FAST_IRC: "1" },
  });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let flooder: Flooder | undefined;
  const watcher = await RawIrcClient.connect(irc.port, "watcher");
  const explained = <T>(p: Promise<T>) =>
    p.catch((err) => {
      throw new Error(`${err.message}\n${diagnose(server.output(), irc.output())}`);
    });
  try {
    const { user } = await adminAndUser(server.url);
    await watcher.join("#flood");
    const res = await user.post("/api/connections", {
      url: `irc://127.0.0.1:${irc.port}?nick=alice`,
      conversation_id: "#flood",
    });
    assertEquals(res.status, 200, JSON.stringify(res.body));
    await watcher.waitFor((l) => l.command === "JOIN" && l.nick === "alice");
    await watcher.close();
    flooder = await Flooder.connect(irc.port, "flooder", "#flood");
    const stored = async () =>
      (await sql`SELECT count(*)::int AS n FROM messages
        WHERE sender = 'flooder' AND type = 0`)[0].n as number;

    // Lines keep coming while the server stops, is down, and starts again.
    let sent = 0;
    const send = async (n: number) => {
      let lines = "";
      for (let i = sent; i < sent + n; i++) lines += `PRIVMSG #flood :${floodText(i)}\r\n`;
      sent += n;
      const bytes = new TextEncoder().encode(lines);
      for (let off = 0; off < bytes.length;) off += await flooder!.conn.write(bytes.subarray(off));
    };
    await send(BEFORE);
    await explained(poll("some of the flood stored", async () => (await stored()) > 0, 30_000));
    let restarting = true;
    const restart = pg.restart().finally(() => restarting = false);
    while (restarting) {
      await send(CHUNK);
      await new Promise((r) => setTimeout(r, 20));
    }
    await restart;
    await send(BEFORE);

    const reconnected = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await explained(poll("every line stored", async () => {
        const [{ n }] = await reconnected`SELECT count(*)::int AS n FROM messages
          WHERE sender = 'flooder' AND type = 0`;
        return n >= sent;
      }, 60_000));
      const rows = await reconnected`SELECT text FROM messages
        WHERE sender = 'flooder' AND type = 0 ORDER BY ts`;
      assertEquals(rows.length, sent, "each line once");
      const wrong = rows.findIndex((r: any, i: number) => r.text !== floodText(i));
      assertEquals(wrong, -1, `line ${wrong} is not where it belongs`);
      assertEquals(server.output().match(/message batch dropped|message dropped/g), null);
    } finally {
      await reconnected.end();
    }
  } finally {
    flooder?.close();
    await watcher.close();
    await sql.end({ timeout: 1 }).catch(() => {});
    await server.close();
    await irc.close();
    await pg.close();
  }
});
