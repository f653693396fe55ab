/**
 * Which node runs each user's IRC connections. A node holds one PostgreSQL session of its own
 * (application_name `parley-node:<installation>:<id>`) and in it a session advisory lock per user
 * it runs: PostgreSQL releases them the moment the node dies or its session drops, and every few
 * seconds each node takes free users that want connections, up to its fair share of them, so that
 * users spread over the nodes and a dead node's users move to the living within one scan.
 *
 * `pg_locks` and `pg_stat_activity` show the whole server: only sessions in this database, of
 * this database role, named for this installation (and holding its class of locks) count as nodes
 * or owners, so that another installation (or anyone) on the same server cannot look like one of
 * ours.
 */
import postgres from "postgres";
import { log } from "../lib/log.ts";
import { hex, hmacBytes } from "../lib/crypto.ts";
import { reconnectDelay, type Sql } from "../store/pg/db.ts";

/** Prefix of the application_name of a node's lock session. */
export const NODE_APP = "parley-node:";

/** Where an installation's nodes and locks are. */
interface NodeScope {
  /** Named after the secret the installation's nodes share (not revealing it). */
  installation: string;
  /** application_name of a node's session, before the node's id. */
  prefix: string;
  /** The advisory lock class of user ownership (the first key; the user id is the second). */
  lockClass: number;
}

/**
 * The installation's scope, from the secret its nodes share: nothing to store, and the same on
 * every node and for every command run beside them.
 */
export async function nodeScope(secret: string): Promise<NodeScope> {
  const mac = await hmacBytes(secret, "parley cluster installation");
  const installation = hex(mac.slice(0, 8));
  // 31 bits: pg_locks shows the class as a positive oid.
  const lockClass = new DataView(mac.buffer, mac.byteOffset + 8, 4).getUint32(0) >>> 1;
  return { installation, prefix: `${NODE_APP}${installation}:`, lockClass };
}

/** The node running the user, if any, in `scope`. */
export async function ownerOf(
  sql: Sql,
  scope: NodeScope,
  userId: number,
): Promise<string | undefined> {
  const [row] = await sql`SELECT a.application_name AS app FROM pg_locks l
    JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.classid::bigint = ${scope.lockClass}
      AND l.objid::bigint = ${userId} AND l.objsubid = 2 AND l.granted
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND a.datname = current_database() AND a.usename = current_user
      AND starts_with(a.application_name, ${scope.prefix})`;
  return row ? String(row.app).slice(scope.prefix.length) : undefined;
}

/**
 * The nodes alive: sessions of this database and role whose application_name starts with
 * `prefix` (a scope's, or NODE_APP for the nodes of any secret); their names after it.
 */
export async function liveNodes(sql: Sql, prefix: string): Promise<string[]> {
  return (await sql`SELECT DISTINCT substr(application_name, ${prefix.length + 1}) AS node
    FROM pg_stat_activity WHERE datname = current_database() AND usename = current_user
      AND starts_with(application_name, ${prefix})`).map((r) => String(r.node));
}

/** What ownership tells its node. */
interface OwnershipHooks {
  /** This node now runs the user: connect their wanted connections. */
  acquired(userId: number): Promise<void>;
  /** This node no longer runs the user: stop their connections at once. */
  lost(userId: number): Promise<void>;
  /** After each scan, with the ids of the nodes alive (this one included). */
  scanned?(nodes: string[]): Promise<void>;
}

/**
 * How long a node keeps running its users after its lock session is lost, taking their locks
 * again once the database answers: a restart of PostgreSQL is back within it. Not more than one
 * scan of the other nodes (5 s), which may take a user whose lock stays free.
 */
const RETAKE_MS = 5_000;
/** How long a deleted user's lock is held at most, waiting for their rows to go. */
const RETIRE_MS = 60_000;

/** Shuffles in place (users are taken in random order, so two nodes rarely race for one). */
function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** One node's ownership of users. */
export class Ownership {
  readonly nodeId: string;
  #url: string;
  #secret: string;
  #session?: Sql;
  #scope?: NodeScope;
  #sql: Sql;
  #hooks: OwnershipHooks;
  #scanMs: number;
  #owned = new Set<number>();
  /** Users run while the lock session reconnects, their locks not yet taken again. */
  #retaking = new Set<number>();
  /**
   * Users being deleted, stopped here, by when their lock goes: held until their rows are gone,
   * so that no node starts them again from the rows in between.
   */
  #retired = new Map<number, number>();
  #timer?: ReturnType<typeof setTimeout>;
  #stopping = false;
  /** The lock session is connected (its locks held), as far as the client has told. */
  #sessionOpen = false;
  #scanning?: Promise<void>;
  /** Serialises claims and scans, so one user is never taken twice in one session. */
  #turn: Promise<unknown> = Promise.resolve();

  /**
   * `url` is the database, `sql` the store's pool (for reading connections); `scanMs` how often
   * free users are looked for; `secret` the one the installation's nodes share.
   */
  constructor(
    url: string,
    sql: Sql,
    nodeId: string,
    hooks: OwnershipHooks,
    scanMs: number,
    secret: string,
  ) {
    this.nodeId = nodeId;
    this.#url = url;
    this.#secret = secret;
    this.#sql = sql;
    this.#hooks = hooks;
    this.#scanMs = scanMs;
  }

  /**
   * Opens the lock session, so that the other nodes count this one from now on (even while it
   * runs nobody), and starts scanning; resolves after the first scan.
   */
  async start(): Promise<void> {
    const scope = this.#scope = await nodeScope(this.#secret);
    // One connection, never recycled: the locks live and die with it.
    this.#session = postgres(this.#url, {
      max: 1,
      max_lifetime: null,
      onnotice: () => {},
      backoff: reconnectDelay,
      connection: { application_name: `${scope.prefix}${this.nodeId}` },
      onclose: () => this.#sessionLost(),
    }) as unknown as Sql;
    await this.#session`SELECT 1`;
    this.#sessionOpen = true;
    await this.scan();
  }

  /** Whether the lock session is open: the other nodes count this one and its locks hold. */
  get sessionOpen(): boolean {
    return this.#sessionOpen;
  }

  /** This installation's scope (after start). */
  get scope(): NodeScope {
    if (!this.#scope) throw new Error("ownership not started");
    return this.#scope;
  }

  /** Whether this node runs the user. */
  owns(userId: number): boolean {
    return this.#owned.has(userId) || this.#retaking.has(userId);
  }

  /** The users this node runs. */
  owned(): number[] {
    return [...this.#owned, ...this.#retaking];
  }

  /** The nodes of this installation alive now (this one included once started). */
  nodes(): Promise<string[]> {
    return liveNodes(this.#sql, this.scope.prefix);
  }

  /** The node running the user, if any. */
  async ownerOf(userId: number): Promise<string | undefined> {
    if (this.owns(userId)) return this.nodeId;
    return await ownerOf(this.#sql, this.scope, userId);
  }

  /** The node running the user; a user nobody runs is taken by this node. */
  claim(userId: number): Promise<string> {
    return this.#serial(async () => {
      // Being deleted: its lock is this session's (a second take would succeed), not to run.
      if (this.#owned.has(userId) || this.#retired.has(userId)) return this.nodeId;
      if (await this.#take(userId)) return this.nodeId;
      const owner = await this.ownerOf(userId);
      if (owner) return owner;
      // Released between the two looks: try once more.
      return (await this.#take(userId)) ? this.nodeId : (await this.ownerOf(userId)) ?? this.nodeId;
    });
  }

  /**
   * Gives up a user whose deletion stopped their connections here (nothing is stopped here). The
   * lock stays until a scan finds no connection of theirs left to run, or RETIRE_MS have passed
   * (a deletion that failed halfway: the user is run again, by whichever node takes them).
   */
  retire(userId: number): Promise<void> {
    return this.#serial(() => {
      if (this.#owned.delete(userId)) this.#retired.set(userId, Date.now() + RETIRE_MS);
      return Promise.resolve();
    });
  }

  /** Lets a retired user's lock go. */
  async #unlock(userId: number): Promise<void> {
    this.#retired.delete(userId);
    await this.#session!`SELECT pg_advisory_unlock(${this.scope.lockClass}::int,
      ${userId}::int)`.catch((err) =>
      log.debug("cluster: unlock failed; the lock goes with the session", {
        uid: userId,
        error: String(err),
      })
    );
  }

  /** Looks for free users and takes this node's share of them; then schedules the next look. */
  scan(): Promise<void> {
    this.#scanning ??= this.#serial(() => this.#scan()).catch((err) =>
      log.warn("cluster scan failed", { error: String(err) })
    ).finally(() => {
      this.#scanning = undefined;
      if (this.#stopping) return;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.scan(), this.#scanMs);
    });
    return this.#scanning;
  }

  async #scan(): Promise<void> {
    const scope = this.scope;
    // Also reconnects a session that dropped, so that this node is counted again.
    await this.#session!`SELECT 1`;
    this.#sessionOpen = true;
    const nodes = await liveNodes(this.#sql, scope.prefix);
    if (!nodes.includes(this.nodeId)) nodes.push(this.nodeId);
    // A suspended user is run by nobody (their connections wait for the account's return).
    const wanted = (await this.#sql`SELECT DISTINCT user_id FROM connections
      WHERE wanted_state = 'connected'
        AND user_id IN (SELECT id FROM users WHERE suspended = 0)`).map((r) => Number(r.user_id));
    for (const [userId, until] of this.#retired) {
      if (!wanted.includes(userId) || Date.now() > until) await this.#unlock(userId);
    }
    const taken = new Set(
      (await this.#sql`SELECT l.objid::bigint AS user_id FROM pg_locks l
        JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.classid::bigint = ${scope.lockClass}
          AND l.objsubid = 2 AND l.granted
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND a.datname = current_database() AND a.usename = current_user
          AND starts_with(a.application_name, ${scope.prefix})`).map((r) => Number(r.user_id)),
    );
    const share = Math.ceil(wanted.length / nodes.length);
    let room = share - [...this.#owned].filter((u) => wanted.includes(u)).length;
    // Every lock first, then the users started: a dead node's users are run by nobody until
    // their lock is taken, and starting thousands of connections one user after another held
    // the last locks back for seconds on a busy node.
    const took: number[] = [];
    for (const userId of shuffle(wanted.filter((u) => !taken.has(u) && !this.#retired.has(u)))) {
      if (room <= 0) break;
      if (await this.#lock(userId)) {
        took.push(userId);
        room--;
      }
    }
    for (const userId of took) await this.#run(userId);
    await this.#hooks.scanned?.(nodes);
  }

  /** Tries the user's lock; taken, tells the node to run the user. */
  async #take(userId: number): Promise<boolean> {
    if (!(await this.#lock(userId))) return false;
    await this.#run(userId);
    return true;
  }

  /** Tries the user's lock. */
  async #lock(userId: number): Promise<boolean> {
    if (this.#stopping) return false;
    const [row] = await this.#session!`SELECT pg_try_advisory_lock(${this.scope.lockClass}::int,
      ${userId}::int) AS ok`;
    if (!row.ok) return false;
    this.#owned.add(userId);
    return true;
  }

  /** Tells the node to run a user whose lock it took. */
  async #run(userId: number): Promise<void> {
    // The session may have been lost (every lock with it) since the lock was taken.
    if (this.#stopping || !this.#owned.has(userId)) return;
    log.info("cluster: running user", { uid: userId, node: this.nodeId });
    await this.#hooks.acquired(userId).catch((err) =>
      log.error("cluster: starting a user failed", { uid: userId, error: String(err) })
    );
  }

  /**
   * The lock session is gone, and with it every lock. A restart of PostgreSQL ends every session
   * and is back within seconds: the users keep running while their locks are taken again, and
   * only those whose lock another node took meanwhile, or all of them once RETAKE_MS have passed
   * without the database, are stopped.
   */
  #sessionLost(): void {
    this.#sessionOpen = false;
    if (this.#stopping) return;
    const lost = [...this.#owned];
    this.#owned.clear();
    // Their locks went with the session: nothing left to hold or let go.
    this.#retired.clear();
    if (!lost.length) return;
    log.warn("cluster: lost the database session; taking its locks again", { users: lost.length });
    for (const userId of lost) this.#retaking.add(userId);
    this.#serial(() => this.#retake(lost)).catch((err) =>
      log.error("cluster: taking the locks again failed", {
        users: lost.length,
        error: String(err),
      })
    );
  }

  async #retake(users: number[]): Promise<void> {
    const deadline = Date.now() + RETAKE_MS;
    let back = false;
    while (!back && !this.#stopping && Date.now() < deadline) {
      back = await this.#session!`SELECT 1`.then(() => true, () => false);
      if (!back) await new Promise((r) => setTimeout(r, 250));
    }
    const stop: number[] = [];
    for (const userId of users) {
      this.#retaking.delete(userId);
      if (this.#stopping) continue;
      if (!back || !(await this.#lock(userId).catch(() => false))) stop.push(userId);
    }
    if (back && stop.length < users.length) {
      log.info("cluster: took the locks again", { users: users.length - stop.length });
    }
    if (stop.length) {
      log.warn("cluster: stopping users whose locks are lost", { users: stop.length });
    }
    for (const userId of stop) {
      this.#hooks.lost(userId).catch((err) =>
        log.error("cluster: stopping a user failed", { uid: userId, error: String(err) })
      );
    }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#turn.then(fn, fn);
    // why: the caller gets `next` with its error; the queue only waits for it to settle.
    this.#turn = next.catch(() => {});
    return next;
  }

  /** Stops scanning and ends the session (which releases every lock). */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#scanning;
    this.#owned.clear();
    this.#retired.clear();
    await this.#session?.end({ timeout: 2 });
  }
}
