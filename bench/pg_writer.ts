/**
 * The PostgreSQL writer under a channel's fan-out: PG_WRITER_MEMBERS conversations (each a
 * different user's copy of one channel), each taking PG_WRITER_LINES lines one at a time, all
 * side by side, as the connections of a busy channel's members do. Prints stored rows per second
 * for chat lines (counted unread, with search words) and for channel events (joins), and for
 * events spread over ten times as many conversations, each new to the writer (a join storm).
 */
import { startPostgres } from "../tests/support/postgres.ts";
import { idleConnection } from "../tests/support/backends.ts";
import { openPgStore, type PgStore } from "../store/pg/mod.ts";
import type { MessageType } from "../protocol/events.ts";
import { storedFields } from "../store/event_fields.ts";
import { line } from "./stats.ts";

const MEMBERS = Number(Deno.env.get("PG_WRITER_MEMBERS") ?? 300);
const LINES = Number(Deno.env.get("PG_WRITER_LINES") ?? 100);

async function conversations(store: PgStore, n: number, tag: string) {
  const out: { userId: number; conversation: number }[] = [];
  for (let i = 0; i < n; i++) {
    const user = await store.users.create(`${tag}${i}@bench.example`, "x", []);
    const conn = await idleConnection(store, user.id, "irc-bench", "bench");
    const conv = await store.conversations.ensure(conn.id, "#fan", "#fan");
    out.push({ userId: user.id, conversation: conv.id });
  }
  return out;
}

async function run(name: string, members: number, lines: number, type: MessageType) {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  try {
    const convs = await conversations(store, members, name);
    const t = performance.now();
    await Promise.all(convs.map(async (c) => {
      for (let i = 0; i < lines; i++) {
        const said = {
          from: "fanbot",
          text: `line ${i} of the fan-out, with a few words to index`,
        };
        // A join is kept as data, as irc/chat/inbound/ keeps it: its sender and no text.
        const row = type === "join"
          ? { ...storedFields("join", { nick: "fanbot" }), text: "" }
          : said;
        await store.messages.append({
          conversation: c.conversation,
          userId: c.userId,
          type,
          ...row,
          unread: type === "private",
          highlight: i % 10 === 0,
        });
      }
    }));
    await store.messages.flush();
    const ms = performance.now() - t;
    const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM messages`;
    if (n !== members * lines) throw new Error(`${name}: ${n} of ${members * lines} rows stored`);
    line(`pg_writer_${name}_rows_per_s`, n / ms * 1000, "rows/s");
  } finally {
    await store.close();
    await pg.close();
  }
}

await run("lines", MEMBERS, LINES, "private");
await run("events", MEMBERS, LINES, "join");
await run("new_conversations", MEMBERS * 10, Math.ceil(LINES / 10), "join");
