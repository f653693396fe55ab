/**
 * What the many-connections benches (irc_scale.ts, irc_scale_cluster.ts) share: the shape of the
 * load (who joins which channel), how figures are printed, what /proc says of a process, and an
 * observer on the IRC server that counts what the server counts (LUSERS, and NAMES of each
 * channel).
 */
import { randomId, sha256Hex } from "../lib/crypto.ts";
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

/**
 * A client on the IRC server that counts how many clients are registered (LUSERS) and who is in
 * each bench channel. It sits in every bench channel from the start and follows the joins, parts
 * and quits the server tells its members: asking NAMES of every channel every half second (as it
 * did) was a load of its own on the server, heaviest when the server was busiest, which plain
 * clients measured alone did not carry. `others` is how many registered clients are not Parley's
 * (itself included).
 */
export class IrcObserver {
  others = 1;
  readonly client: RawIrcClient;
  #shape: ScaleShape;
  #ignore: Set<string>;
  #waitMs: number;
  #debug: boolean;
  #keepalive?: ReturnType<typeof setInterval>;
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

  /** Takes the lines received since the last call and follows who joined, left or quit. */
  #follow(): IrcLine[] {
    const lines = this.client.lines.splice(0);
    const members = this.#members;
    const of = (ch: string | undefined) => {
      const key = String(ch ?? "").toLowerCase();
      let set = members.get(key);
      if (!set) members.set(key, set = new Set());
      return set;
    };
    for (const l of lines) {
      if (l.command === "353") {
        for (const n of (l.params.at(-1) ?? "").split(" ")) {
          const name = n.replace(/^[@+%~&]/, "");
          if (name) of(l.params.at(-2)).add(name);
        }
      } else if (l.command === "JOIN") of(l.params[0]).add(l.nick);
      else if (l.command === "PART") of(l.params[0]).delete(l.nick);
      else if (l.command === "KICK") of(l.params[0]).delete(l.params[1]);
      else if (l.command === "251") {
        this.#users = lusersUsers(l.params.at(-1) ?? "");
      } else if (l.command === "266") this.#asked = -Infinity;
      else if (l.command === "QUIT") { for (const set of members.values()) set.delete(l.nick); }
      else if (l.command === "NICK") {
        for (const set of members.values()) {
          if (set.delete(l.nick)) set.add(l.params[0]);
        }
      }
    }
    return lines;
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
    return this.client.close();
  }
}
