/**
 * Import speed: a The Lounge home folder with PARLEY_BENCH_IMPORT messages (default 1,000,000)
 * in 20 channels, imported by `parley import thelounge` in-process; the import itself and the
 * search indexing that follows are measured apart.
 */
import { DatabaseSync } from "node:sqlite";
import { ImportSession, SourceFolder } from "../import/common.ts";
import { importTheLounge } from "../import/thelounge.ts";
import { loadConfig } from "../config.ts";
import { logToStderr } from "../lib/log.ts";

const COUNT = Number(Deno.env.get("PARLEY_BENCH_IMPORT") ?? 1_000_000);
const WORDS = "the quick brown fox jumps over lazy dogs while parley keeps every line".split(" ");
logToStderr();
const dir = await Deno.makeTempDir({ prefix: "bench-lounge-" });
const home = await Deno.makeTempDir({ prefix: "bench-import-" });
try {
  await Deno.mkdir(`${dir}/users`);
  await Deno.mkdir(`${dir}/logs`);
  const uuid = crypto.randomUUID();
  const channels = Array.from({ length: 20 }, (_, i) => ({ name: `#chan${i}`, key: "" }));
  await Deno.writeTextFile(
    `${dir}/users/alice.json`,
    JSON.stringify({
      log: true,
      networks: [{
        uuid,
        name: "Net",
        host: "irc.example.org",
        port: 6697,
        tls: true,
        nick: "alice",
        channels,
      }],
    }),
  );
  const db = new DatabaseSync(`${dir}/logs/alice.sqlite3`);
  db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, network TEXT, channel TEXT,
    time INTEGER, type TEXT, msg TEXT); CREATE INDEX network_channel_time ON messages (network, channel, time)`);
  const insert = db.prepare(
    "INSERT INTO messages (network, channel, time, type, msg) VALUES (?, ?, ?, ?, ?)",
  );
  db.exec("BEGIN");
  const start = Date.UTC(2020, 0, 1);
  for (let i = 0; i < COUNT; i++) {
    const text = Array.from({ length: 8 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(
      " ",
    );
    insert.run(
      uuid,
      `#chan${i % 20}`,
      start + i * 50,
      "message",
      JSON.stringify({
        from: { mode: "", nick: `nick${i % 97}` },
        text: `${text} ${i}`,
        self: false,
        highlight: false,
      }),
    );
  }
  db.exec("COMMIT");
  db.close();

  const config = await loadConfig([], { PARLEY_HOME: home });
  const t0 = performance.now();
  const session = await ImportSession.open(config);
  await importTheLounge(session, await SourceFolder.open(dir), {
    domain: "example.org",
    emails: new Map(),
  });
  const t1 = performance.now();
  await session.finish(); // commits, then waits until the search index has every message
  const t2 = performance.now();
  if (session.summary.messages !== COUNT) throw new Error(`imported ${session.summary.messages}`);
  const rate = Math.round(COUNT / ((t1 - t0) / 1000));
  console.log(`import_thelounge_messages: ${COUNT} messages`);
  console.log(`import_thelounge_write: ${((t1 - t0) / 1000).toFixed(1)} s (${rate} messages/s)`);
  console.log(`import_thelounge_searchable: ${((t2 - t0) / 1000).toFixed(1)} s`);
} finally {
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(home, { recursive: true });
}
