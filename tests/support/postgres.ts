/**
 * Starts a real PostgreSQL for a test file: a throwaway cluster in a temporary folder, on a free
 * loopback port, tuned for speed over durability (fsync off: the data is thrown away).
 */
import postgres from "postgres";
import { ensureTools, POSTGRES, postgresBinDirs } from "../../scripts/system_deps.ts";
import { freePort } from "./ports.ts";
import type { Sql } from "../../store/pg/db.ts";

/** A running PostgreSQL. */
export interface PgServer {
  /** `postgres://parley@127.0.0.1:PORT/parley_test` */
  url: string;
  /** `postgres://parley@127.0.0.1:PORT`: append a database name (see createDatabase). */
  base: string;
  /** A new, empty database on the same server; returns its URL. */
  database(): Promise<string>;
  /**
   * `pg_ctl restart -m fast`: every session is ended (open transactions rolled back), the server
   * stops and starts again with the same settings; resolves once it accepts connections.
   */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: the server goes away until `start()`. */
  stop(): Promise<void>;
  /** Starts the server stopped by `stop()`, with its settings; resolves once it accepts connections. */
  start(): Promise<void>;
  /**
   * Freezes the server and every session's process (SIGSTOP), or thaws them (SIGCONT): its
   * connections stay open and nothing answers, as from a host that hangs.
   */
  freeze(frozen: boolean): Promise<void>;
  /** The data folder's parent, owned by the server's user: room for a tablespace's folder. */
  dir: string;
  /** Stops the server at once and removes its folder. */
  close(): Promise<void>;
}

const USER = "parley";

/** The uid and gid of the `postgres` system user (the Debian package creates it). */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const passwd = await Deno.readTextFile("/etc/passwd");
  const line = passwd.split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("the postgres system user is missing (Debian package postgresql)");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

async function run(cmd: string[], asPostgres: boolean): Promise<void> {
  // initdb and the server refuse to run as root: as root they run as the `postgres` user.
  const argv = asPostgres ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const dec = new TextDecoder();
    throw new Error(
      `${cmd.join(" ")} failed: ${dec.decode(out.stderr)}${dec.decode(out.stdout)}`,
    );
  }
}

/**
 * Creates a database with a random name on the server at `base` (`postgres://user@host:port`);
 * returns its URL. Test processes that share one server (the runner's PostgreSQL pass) each make
 * their own.
 */
export async function createDatabase(base: string): Promise<string> {
  const name = `parley_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return `${base}/${name}`;
}

/** The processes whose parent is `pid` (from /proc: no tool needed). */
async function childrenOf(pid: number): Promise<number[]> {
  const kids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    // The command name (field 2) is in parentheses and may hold spaces: fields after its end.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === pid) kids.push(Number(entry.name));
  }
  return kids;
}

/** Initialises a cluster, starts it and creates the database `parley_test`. */
export async function startPostgres(
  options: { maxConnections?: number; sharedBuffers?: string; settings?: string[] } = {},
): Promise<PgServer> {
  await ensureTools([POSTGRES]); // names the package when it is missing and cannot be installed
  const bin = postgresBinDirs()[0];
  const asPostgres = Deno.uid?.() === 0;
  // As root the server runs as `postgres`, which must reach the folder: /tmp, whatever TMPDIR is.
  const dir = await Deno.makeTempDir({
    prefix: "parley-pg-",
    dir: asPostgres ? "/tmp" : undefined,
  });
  const data = `${dir}/data`;
  if (asPostgres) {
    const { uid, gid } = await postgresUser();
    await Deno.chown(dir, uid, gid);
  }
  const port = freePort();
  await run([
    `${bin}/initdb`,
    "-D",
    data,
    "-U",
    USER,
    "--auth=trust",
    "--encoding=UTF8",
    "--locale=C",
    "--no-sync",
  ], asPostgres);
  const opts = [
    `-c port=${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    `-c shared_buffers=${options.sharedBuffers ?? "16MB"}`,
    `-c max_connections=${options.maxConnections ?? 40}`,
    ...(options.settings ?? []).map((setting) => `-c ${setting}`),
  ].join(" ");
  // -w waits until the server accepts connections.
  const start = () =>
    run(
      [`${bin}/pg_ctl`, "start", "-w", "-t", "60", "-D", data, "-l", `${dir}/log`, "-o", opts],
      asPostgres,
    );
  await start();
  const base = `postgres://${USER}@127.0.0.1:${port}`;
  let n = 0;
  async function database(): Promise<string> {
    const name = `parley_test${n++ || ""}`;
    const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    return `${base}/${name}`;
  }
  async function freeze(frozen: boolean): Promise<void> {
    const main = Number((await Deno.readTextFile(`${data}/postmaster.pid`)).split("\n")[0]);
    for (const pid of [main, ...await childrenOf(main)]) {
      Deno.kill(pid, frozen ? "SIGSTOP" : "SIGCONT");
    }
  }
  try {
    const url = await database();
    return {
      url,
      base,
      dir,
      database,
      start,
      stop: () => run([`${bin}/pg_ctl`, "stop", "-m", "fast", "-w", "-D", data], asPostgres),
      freeze,
      async restart() {
        // -l as at start: without it the server would inherit (and hold open) pg_ctl's output.
        await run(
          [
            `${bin}/pg_ctl`,
            "restart",
            "-m",
            "fast",
            "-w",
            "-t",
            "60",
            "-D",
            data,
            "-l",
            `${dir}/log`,
          ],
          asPostgres,
        );
      },
      async close() {
        // A frozen server would not see the signal that stops it.
        await freeze(false).catch(() => {});
        await run([`${bin}/pg_ctl`, "stop", "-m", "immediate", "-D", data], asPostgres)
          .catch(() => {});
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (err) {
    await run([`${bin}/pg_ctl`, "stop", "-m", "immediate", "-D", data], asPostgres).catch(
      () => {},
    );
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
}

/**
 * A user, a connection and a channel named after `tag`, written straight to a migrated database
 * (for tests of the message store alone, without the tables' code).
 */
export async function seedChannel(sql: Sql, tag: string) {
  const [{ id: userId }] = await sql`INSERT INTO users (email) VALUES (${`${tag}@example.com`})
    RETURNING id`;
  const [{ id: connection }] = await sql`INSERT INTO connections (user_id, connection_id)
    VALUES (${userId}, ${`irc-${tag}`}) RETURNING id`;
  const [{ id: conversation }] = await sql`INSERT INTO conversations
    (connection, conversation_id) VALUES (${connection}, ${`#${tag}`}) RETURNING id`;
  return { userId: userId as number, conversation: conversation as number };
}

/**
 * Ends the session that holds the LISTENs of the database (the first found), as a restart of
 * PostgreSQL would: what is told until the client listens again by itself reaches nobody. Through
 * `db`, or a connection of its own to it when given a URL; returns the ended session's pid.
 */
export async function endListening(db: Sql | string): Promise<number> {
  const sql = typeof db === "string" ? postgres(db, { max: 1, onnotice: () => {} }) : db;
  try {
    const [{ pid }] = await sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND query ~* '^(un)?listen '`;
    await sql`SELECT pg_terminate_backend(${pid})`;
    return pid;
  } finally {
    if (typeof db === "string") await sql.end();
  }
}
