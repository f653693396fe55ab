/**
 * `deno task bench`: runs every benchmark in turn; each prints `name: value unit` lines.
 * Sizes: PARLEY_BENCH_MESSAGES (history, default 1,000,000), IRC_BENCH_CONNECTIONS (default
 * 1,000), IRC_BENCH_RATE and IRC_BENCH_SECONDS (latency, default 1,000/s for 5 s),
 * PARLEY_BENCH_FLOOD (burst, default 200,000), PARLEY_BENCH_CHATHISTORY_MESSAGES (CHATHISTORY,
 * default 200,000), PARLEY_BENCH_RELAY_RATE and PARLEY_BENCH_RELAY_SECONDS (the bouncer's
 * relay, default 1,000/s for 20 s; PARLEY_BENCH_ATTACH=0 runs it alone), SCALE_USERS and
 * SCALE_CONNECTIONS (many users' connections, default 20 x 5; SCALE_LISTENER=1 with the IRC
 * listener on, SCALE_ATTACH IRC clients attached; see bench/irc_scale.ts, and
 * bench/irc_scale_cluster.ts for two nodes on PostgreSQL), PG_WRITER_MEMBERS and PG_WRITER_LINES (the PostgreSQL writer under a channel's
 * fan-out, default 300 x 100), PARLEY_BENCH_RETENTION_ROWS and PARLEY_BENCH_RETENTION_PRUNE
 * (retention: rows stored and pruned, default 10,000,000 and 1,000,000; PARLEY_BENCH_POSTGRES=1
 * runs it, as history, on PostgreSQL), PARLEY_BENCH_WEB_BURST (lines sent into the web client's open
 * conversation, default 3,000). A name given runs the benchmark of that name, else every
 * one it begins.
 */
const BENCHES = [
  "history.ts",
  "store_tables.ts",
  "pg_writer.ts",
  "retention.ts",
  "chathistory.ts",
  "bouncer.ts",
  "irc_connections.ts",
  "irc_scale.ts",
  "irc_scale_cluster.ts",
  "irc_latency.ts",
  "irc_flood.ts",
  "irc_parse.ts",
  "irc_handlers.ts",
  "embed_parse.ts",
  "import.ts",
  "import_znc.ts",
  "bundle_size.ts",
  "web_burst.ts",
  "metrics.ts",
];
const dir = new URL(".", import.meta.url).pathname;
const only = Deno.args[0];

// `irc_scale` is that benchmark alone, not also irc_scale_cluster.
const exact = BENCHES.filter((b) => b === only || b === `${only}.ts`);
const chosen = exact.length ? exact : BENCHES.filter((b) => !only || b.startsWith(only));

let failed = false;
for (const file of chosen) {
  console.error(`# ${file}`);
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${dir}${file}`],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) {
    console.error(`# ${file} failed`);
    failed = true;
  }
}
Deno.exit(failed ? 1 : 0);
