/**
 * What the many-connections benches (irc_scale.ts, irc_scale_cluster.ts) share: the shape of the
 * load (who joins which channel), how figures are printed, what /proc says of a process, and an
 * observer on the IRC server that counts what the server counts (LUSERS, and NAMES of each
 * channel), and a count of the rows the daemon stores as it commits them.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { randomId, sha256Hex } from "../lib/crypto.ts";
import { FIRST_EVENT_CODE } from "../protocol/messages.ts";
import type { Store } from "../store/mod.ts";
import { type IrcLine, RawIrcClient } from "../tests/support/irc_client.ts";
import { type IrcServer, startIrcServer } from "../tests/support/ngircd.ts";
import { startHybridServer } from "../tests/support/hybrid.ts";

/** A number from the environment, or `fallback`. */
export const num = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
export const seconds = (ms: number) => ms / 1000;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `q` quantile of `values` (NaN when there are none). */
export function p(values: number[], q: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/** Prints `<prefix>name: value unit` lines, numbers with two decimals unless whole. */
export function printer(prefix: string) {
  return (name: string, value: number | string, unit = "") => {
    const v = typeof value === "number"
      ? (Number.isInteger(value) ? value : value.toFixed(2))
      : value;
    console.log(`${prefix}${name}: ${v}${unit ? ` ${unit}` : ""}`);
  };
}

/**
 * The IRC server of the many-connections benches, by SCALE_IRCD: `ngircd` (the default, as the
 * tests use) or `hybrid` (ircd-hybrid, which keeps up where ngircd's loops over all its clients
 * slow its registrations down by thousands). Says which on stdout, with the benches' figures.
 */
export async function startScaleIrc(prefix: string): Promise<IrcServer> {
  const which = Deno.env.get("SCALE_IRCD") || "ngircd";
  if (which !== "ngircd" && which !== "hybrid") {
    throw new Error(`SCALE_IRCD must be ngircd or hybrid, not ${which}`);
  }
  printer(prefix)("ircd", which);
  return which === "hybrid" ? await startHybridServer() : await startIrcServer();
}

/**
 * The registered clients a LUSERS reply (251) counts: ngircd says "There are N users and M
 * services", hybrid "There are N users and M invisible", and invisible users are users too.
 *
 * @internal test seam
 */
export function lusersUsers(text: string): number {
  const users = Number(/There are (\d+) users/.exec(text)?.[1] ?? 0);
  return users + Number(/and (\d+) invisible/.exec(text)?.[1] ?? 0);
}

/**
 * Resident memory (MB) of a process, from one read of /proc: all of it (VmRSS), and the process's
 * own (RssAnon); the rest is pages of files it maps, most of them `parley.db` (SQLite reads
 * through a memory map), which the kernel drops when memory is short.
 */
export function memoryMb(pid: number): { rss: number; anon: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, anon: kb("RssAnon") / 1024 };
}
/** Prints a process's memory as `name` (VmRSS) and `name` with `rss_anon` for `rss` (RssAnon). */
export function printMemory(
  print: ReturnType<typeof printer>,
  name: string,
  pid: number,
): number {
  const { rss, anon } = memoryMb(pid);
  print(name, rss, "MB");
  print(name.replace(/^rss/, "rss_anon"), anon, "MB");
  return rss;
}
/** CPU seconds of each thread of a process, by thread name (`worker-1`, `V8 DefaultWorke`...). */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const name = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/comm`).trim();
      out.set(`${name} ${t.name}`, cpuSeconds(`${pid}/task/${t.name}`));
    } catch { /* ended */ }
  }
  return out;
}

/**
 * Where a process's CPU went between two `threadCpu` readings, summed by thread name (`deno` the
 * main thread, `worker-1` the first worker...), busiest first: `name=seconds` pairs.
 */
export function threadSplit(
  before: Map<string, number>,
  after: Map<string, number>,
  scale = 1,
  digits = 2,
): string {
  const sums = new Map<string, number>();
  for (const [key, v] of after) {
    const name = key.slice(0, key.lastIndexOf(" ")).replace(/\s+/g, "_");
    sums.set(name, (sums.get(name) ?? 0) + (v - (before.get(key) ?? 0)) * scale);
  }
  return [...sums].filter(([, v]) => v >= 0.5 * 10 ** -digits).sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}=${v.toFixed(digits)}`).join(" ");
}

/** CPU time (s) of a process or thread, from /proc. */
export function cpuSeconds(pid: number | string): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks
}

/**
 * Creates `users` admins (u0@bench.example, u1...) with a session each, in a store no daemon has
 * open yet; returns the Cookie header of each user's session.
 */
export async function seedUsers(store: Store, users: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let u = 0; u < users; u++) {
    const user = await store.users.create(`u${u}@bench.example`, "x", ["admin"]);
    const id = randomId(32);
    await store.sessions.create(await sha256Hex(id), user.id, Date.now() + 7 * 86_400_000);
    cookies.push(`parley=${id}`);
  }
  return cookies;
}

/** One API request to the daemon at `base` with a session cookie; its JSON answer, or throws. */
export async function callApi(
  base: string,
  cookie: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { cookie, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** The load: USERS users with PER_USER connections, each in JOINS of CHANNELS channels. */
export interface ScaleShape {
  users: number;
  perUser: number;
  channels: number;
  joins: number;
  /** The first connection of the first `fanout` users also joins FAN. */
  fanout: number;
}

/** The channel of the fan-out (irc_scale.ts). */
export const FAN = "#fan";

export const nick = (u: number, c: number) => `u${u}c${c}`;

/** The channels of connection number `g` (0..N-1): `joins` of `channels`, spread evenly. */
export const channelsOf = (shape: ScaleShape, g: number) =>
  Array.from(
    { length: shape.joins },
    (_, k) => `#ch${(g + k * Math.floor(shape.channels / shape.joins)) % shape.channels}`,
  );

/** What connection `c` of user `u` joins: its channels, and FAN for the fan-out's members. */
export const joinsOf = (shape: ScaleShape, u: number, c: number) => [
  ...channelsOf(shape, u * shape.perUser + c),
  ...(c === 0 && u < shape.fanout ? [FAN] : []),
];

/** How often the observer looks at what it received: the precision of the times it records. */
const LOOK_MS = 10;

/**
 * A client on the IRC server that counts how many clients are registered (LUSERS) and who is in
 * each bench channel. It sits in every bench channel from the start and follows the joins, parts
 * and quits the server tells its members: asking NAMES of every channel every half second would be a
 * load of its own on the server, heaviest when the server is busiest, which plain clients
 * measured alone do not carry. `others` is how many registered clients are not Parley's
 * (itself included). It also notes when each connection came to be in all its channels, to within
 * LOOK_MS.
 */
export class IrcObserver {
  others = 1;
  readonly client: RawIrcClient;
  #shape: ScaleShape;
  #ignore: Set<string>;
  #waitMs: number;
  #debug: boolean;
  #keepalive?: ReturnType<typeof setInterval>;
  #look?: ReturnType<typeof setInterval>;
  /** The casefolded channels of each connection's nick. */
  #wants = new Map<string, string[]>();
  /** Since when each nick has been in all its channels, unbroken (performance.now()). */
  #onIrcAt = new Map<string, number>();
  /** Registered clients, by the last LUSERS answer. */
  #users = 0;
  /** When the LUSERS under way was asked (-Infinity: none is). */
  #asked = -Infinity;
  /** Members by casefolded channel, as the server told this observer. */
  #members = new Map<string, Set<string>>();

  private constructor(
    client: RawIrcClient,
    shape: ScaleShape,
    opts: { ignore: string[]; waitMs: number; debug: boolean },
  ) {
    this.client = client;
    this.#shape = shape;
    this.#ignore = new Set(["observer", ...opts.ignore]);
    this.#waitMs = opts.waitMs;
    this.#debug = opts.debug;
    for (let u = 0; u < shape.users; u++) {
      for (let c = 0; c < shape.perUser; c++) {
        this.#wants.set(nick(u, c), joinsOf(shape, u, c).map((ch) => ch.toLowerCase()));
      }
    }
  }

  /**
   * Connects as "observer" and joins every bench channel; `ignore` are nicks of other clients
   * that are not Parley's, left out of the channels' members; `waitMs` bounds allOnIrc.
   */
  static async connect(
    port: number,
    shape: ScaleShape,
    opts: { ignore: string[]; waitMs: number; debug: boolean },
  ): Promise<IrcObserver> {
    const observer = new IrcObserver(await RawIrcClient.connect(port, "observer"), shape, opts);
    const all = [...Array.from({ length: shape.channels }, (_, i) => `#ch${i}`), FAN];
    for (let i = 0; i < all.length; i += 40) {
      await observer.client.send(`JOIN ${all.slice(i, i + 40).join(",")}`);
    }
    const last = all.at(-1)!.toLowerCase();
    await observer.client.waitFor(
      (l) => l.command === "366" && l.params[1]?.toLowerCase() === last,
      120_000,
    );
    observer.#follow();
    observer.#look = setInterval(() => observer.#follow(), LOOK_MS);
    // Never silent for the server's ping timeout (120 s here): a PING it sends while it is busy
    // with thousands of joins may not see the answer in time.
    observer.#keepalive = setInterval(
      () => observer.client.send("PING :observer").catch(() => {}),
      30_000,
    );
    return observer;
  }

  get connections(): number {
    return this.#shape.users * this.#shape.perUser;
  }

  get expectedMembers(): number {
    return this.connections * this.#shape.joins + this.#shape.fanout;
  }

  /**
   * Takes the lines received since the last call and follows who joined, left or quit; they
   * reached the observer at most LOOK_MS before now.
   */
  #follow(): IrcLine[] {
    const lines = this.client.lines.splice(0);
    if (!lines.length) return lines;
    const at = performance.now();
    const members = this.#members;
    const of = (ch: string | undefined) => {
      const key = String(ch ?? "").toLowerCase();
      let set = members.get(key);
      if (!set) members.set(key, set = new Set());
      return set;
    };
    // A connection is on IRC from the line that put it in the last of its channels: a JOIN
    // comes after the server registered it, so that is both.
    const joined = (name: string) => {
      const wants = this.#wants.get(name);
      if (!wants || this.#onIrcAt.has(name)) return;
      if (wants.every((ch) => members.get(ch)?.has(name))) this.#onIrcAt.set(name, at);
    };
    for (const l of lines) {
      if (l.command === "353") {
        for (const n of (l.params.at(-1) ?? "").split(" ")) {
          const name = n.replace(/^[@+%~&]/, "");
          if (name) of(l.params.at(-2)).add(name);
          joined(name);
        }
      } else if (l.command === "JOIN") {
        of(l.params[0]).add(l.nick);
        joined(l.nick);
      } else if (l.command === "PART") {
        of(l.params[0]).delete(l.nick);
        this.#onIrcAt.delete(l.nick);
      } else if (l.command === "KICK") {
        of(l.params[0]).delete(l.params[1]);
        this.#onIrcAt.delete(l.params[1]);
      } else if (l.command === "251") {
        this.#users = lusersUsers(l.params.at(-1) ?? "");
      } else if (l.command === "266") this.#asked = -Infinity;
      else if (l.command === "QUIT") {
        for (const set of members.values()) set.delete(l.nick);
        this.#onIrcAt.delete(l.nick);
      } else if (l.command === "NICK") {
        for (const set of members.values()) {
          if (set.delete(l.nick)) set.add(l.params[0]);
        }
        this.#onIrcAt.delete(l.nick);
        joined(l.params[0]);
      }
    }
    return lines;
  }

  /**
   * When `name` came to be in all its channels (performance.now()), if it is in them now: a
   * connection that left one and came back counts from its return.
   */
  onIrcAt(name: string): number | undefined {
    this.#follow();
    return this.#onIrcAt.get(name);
  }

  /**
   * Seconds from `since(nick)` until each connection was in all its channels (Infinity for one
   * that is not now): their p50, p99 and max, and the nick of the slowest. A connection with no
   * channel to join cannot be seen, and is left out.
   */
  onIrcFigures(since: (name: string) => number) {
    this.#follow();
    const times: number[] = [];
    let max = -Infinity;
    let slowest = "";
    for (const [name, wants] of this.#wants) {
      if (!wants.length) continue;
      const at = this.#onIrcAt.get(name);
      const s = at === undefined ? Infinity : seconds(at - since(name));
      times.push(s);
      if (s > max) [max, slowest] = [s, name];
    }
    return { p50: p(times, 0.5), p99: p(times, 0.99), max: times.length ? max : NaN, slowest };
  }

  /**
   * Registered clients (the last LUSERS answer) and channel memberships, as the server counts
   * them. A LUSERS is asked when none is under way (or one got no answer for 30 s): a server busy
   * with a restart storm can take minutes to answer, and the count goes on meanwhile.
   */
  counts(): { users: number; members: number } {
    this.#follow();
    if (performance.now() - this.#asked > 30_000) {
      this.#asked = performance.now();
      this.client.send("LUSERS").catch(() => {});
    }
    let members = 0;
    for (const nicks of this.names().values()) members += nicks.size;
    return { users: this.#users, members };
  }

  /** The members of every bench channel, by channel, but for the clients that are not Parley's. */
  names(): Map<string, Set<string>> {
    this.#follow();
    const out = new Map<string, Set<string>>();
    for (const [ch, set] of this.#members) {
      out.set(ch, new Set([...set].filter((n) => !this.#ignore.has(n))));
    }
    return out;
  }

  /** Which connections are not in all their channels (shown when the wait ran out). */
  missingJoins() {
    const members = this.names();
    let shown = 0;
    for (let u = 0; u < this.#shape.users; u++) {
      for (let c = 0; c < this.#shape.perUser; c++) {
        const missing = joinsOf(this.#shape, u, c).filter((ch) =>
          !members.get(ch)?.has(nick(u, c))
        );
        if (missing.length) console.error(`# ${nick(u, c)} is not in ${missing.join(" ")}`);
        if (missing.length && ++shown > 20) return;
      }
    }
  }

  /**
   * Waits until the server counts every connection registered and every join made (at most
   * `waitMs`); ms from `since`, and how many were still missing when the wait ran out.
   */
  async allOnIrc(since: number, onRegistered?: (ms: number) => void) {
    const n = this.connections;
    let registered = false;
    const deadline = since + this.#waitMs;
    let c = { users: 0, members: 0 };
    while (performance.now() < deadline) {
      c = this.counts();
      if (this.#debug) {
        console.error(`# ${seconds(performance.now() - since)} s: ${JSON.stringify(c)}`);
      }
      if (!registered && c.users >= n + this.others) {
        registered = true;
        onRegistered?.(performance.now() - since);
      }
      if (registered && c.members >= this.expectedMembers) break;
      await sleep(500);
    }
    const missing = {
      users: Math.max(0, n + this.others - c.users),
      members: Math.max(0, this.expectedMembers - c.members),
    };
    if (missing.users || missing.members) this.missingJoins();
    return { ms: performance.now() - since, missing };
  }

  close(): Promise<void> {
    clearInterval(this.#keepalive);
    clearInterval(this.#look);
    return this.client.close();
  }
}

/**
 * Counts the lines `sender` said in `conversations` (rows below FIRST_EVENT_CODE) as the daemon
 * commits them, through a read-only handle on its parley.db: each poll reads only the rows after
 * the highest id it saw, since the one writer gives ids in commit order and never reuses one. A
 * full count(*) of hundreds of thousands of rows every few ms would be a load of its own on the
 * cores the daemon runs on. Polls every `everyMs` from `start()` until `stop()`, and keeps each change
 * of the count with the time of the poll that saw it.
 */
export class StoredRows {
  /** Rows counted since the counter was made. */
  count = 0;
  #after: number;
  #poll: StatementSync;
  #sender: string;
  #everyMs: number;
  #times: number[] = [];
  #counts: number[] = [];
  #running?: Promise<void>;
  #stopped = false;

  constructor(db: DatabaseSync, conversations: number[], sender: string, everyMs = 5) {
    this.#after = (db.prepare("SELECT coalesce(max(id), 0) AS top FROM messages").get() as {
      top: number;
    }).top;
    this.#poll = db.prepare(
      `SELECT max(id) AS top, coalesce(sum(conversation IN (${conversations.join(",") || "0"})
        AND sender = ? AND type < ${FIRST_EVENT_CODE}), 0) AS n FROM messages WHERE id > ?`,
    );
    this.#sender = sender;
    this.#everyMs = everyMs;
  }

  /** Reads the rows committed since the last poll; the count. */
  poll(): number {
    const row = this.#poll.get(this.#sender, this.#after) as { top: number | null; n: number };
    if (row.top === null) return this.count;
    this.#after = row.top;
    if (row.n) {
      this.count += row.n;
      this.#times.push(performance.now());
      this.#counts.push(this.count);
    }
    return this.count;
  }

  /** Polls in the background until `stop()`. */
  start(): void {
    this.#running ??= (async () => {
      while (!this.#stopped) {
        this.poll();
        await sleep(this.#everyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  /** Waits until the count reaches `target` or `timeoutMs` passed; when it did, or NaN. */
  async until(target: number, timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.poll() >= target) return this.#times.at(-1)!;
      await sleep(this.#everyMs);
    }
    return NaN;
  }

  /**
   * Of the rows counted after the count was `from`, up to `to` (or the last change seen, when it
   * never got there): when a poll first saw one of them and when it saw the count reach `to`,
   * and the rows stored per second in between (the rows the first poll saw were stored before
   * it). The pipeline from the IRC server to the commit delays both ends alike. Read it before
   * the rows of the next phase come.
   */
  phase(from: number, to: number): { firstAt: number; lastAt: number; rowsPerS: number } {
    const first = this.#counts.findIndex((n) => n > from);
    if (first < 0) return { firstAt: NaN, lastAt: NaN, rowsPerS: NaN };
    let last = this.#counts.findIndex((n) => n >= to);
    if (last < 0) last = this.#counts.length - 1;
    const firstAt = this.#times[first];
    const lastAt = this.#times[last];
    const rows = this.#counts[last] - this.#counts[first];
    return { firstAt, lastAt, rowsPerS: rows / seconds(lastAt - firstAt) };
  }
}
