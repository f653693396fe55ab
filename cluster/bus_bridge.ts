/**
 * Events across nodes. Each node tells the others how many event sockets each user has open on
 * it, of which login sessions, and how many of their pages are not looked at (`parley_listeners`,
 * and the table `cluster_listeners` for nodes that start later); an event
 * published on a node for a user with sockets elsewhere is sent on `parley_events` and delivered
 * there to the sockets only. Taps (push notifications, automatic away) run where the event was
 * published, once; they see every node's sockets through the bus's remote count.
 */
import type { EventBus } from "../lib/bus.ts";
import type { BusEvent } from "../protocol/events.ts";
import { log } from "../lib/log.ts";
import type { PgChannel } from "./channel.ts";

const EVENTS = "parley_events";
const LISTENERS = "parley_listeners";

interface EventMessage {
  node: string;
  user: number;
  ev: BusEvent;
}

interface ListenersMessage {
  node: string;
  user: number;
  count: number;
  /** The login sessions (hashes) of those sockets; absent from a node that does not say them. */
  sessions?: string[];
  /** How many of them are pages not looked at; absent: none. */
  away?: number;
}

/** One node's sockets of a user. */
interface Sockets {
  count: number;
  sessions: readonly string[];
  away: number;
}

/** The sessions column: hashes separated by spaces. */
const sessionsOf = (column: string | null | undefined): string[] =>
  column ? column.split(" ").filter(Boolean) : [];

/** Connects a node's bus to the other nodes. */
export class BusBridge {
  #bus: EventBus;
  #channel: PgChannel;
  #node: string;
  /** Sockets per user per other node. */
  #remote = new Map<number, Map<string, Sockets>>();
  /** Sockets told by the other nodes so far, and per user the number of the last telling. */
  #told = 0;
  #toldAt = new Map<number, number>();
  #unlisten: (() => Promise<void>)[] = [];
  /** Keeps the table's rows in the order the counts changed. */
  #writes: Promise<unknown> = Promise.resolve();

  constructor(bus: EventBus, channel: PgChannel, node: string) {
    this.#bus = bus;
    this.#channel = channel;
    this.#node = node;
  }

  /** Listens, loads the other nodes' sockets, and announces this node's. */
  async start(): Promise<void> {
    this.#unlisten.push(
      await this.#channel.listen(EVENTS, (m) => {
        const msg = m as EventMessage;
        if (msg.node !== this.#node) this.#bus.deliverLocal(msg.user, msg.ev);
      }),
      await this.#channel.listen(LISTENERS, (m) => {
        const msg = m as ListenersMessage;
        if (msg.node === this.#node) return;
        // Only a node's sockets said, not a dead one's withdrawn: those a scan reads as well.
        if (msg.count > 0) this.#toldAt.set(msg.user, ++this.#told);
        this.#setRemote(msg.node, msg.user, {
          count: msg.count,
          sessions: msg.sessions ?? [],
          away: msg.away ?? 0,
        });
      }),
    );
    const { others } = await this.#readTable();
    for (const [user, nodes] of others) this.#countRemote(user, nodes);
    this.#bus.setRelay({
      localCount: (user, count, sessions, away) => this.#announce(user, count, sessions, away),
      relay: (user, ev) => {
        this.#channel.send(EVENTS, { node: this.#node, user, ev } satisfies EventMessage)
          .catch((err) => log.warn("cluster: event not relayed", { error: String(err) }));
      },
    });
    for (const user of this.#bus.localUsers()) this.#announceLocal(user);
  }

  #setRemote(node: string, user: number, sockets: Sockets): void {
    const nodes = this.#remote.get(user) ?? new Map<string, Sockets>();
    if (sockets.count > 0) nodes.set(node, sockets);
    else nodes.delete(node);
    this.#countRemote(user, nodes);
  }

  /** Counts `nodes` (node to sockets) as the user's sockets on the other nodes. */
  #countRemote(user: number, nodes: Map<string, Sockets>): void {
    if (nodes.size) this.#remote.set(user, nodes);
    else this.#remote.delete(user);
    let sum = 0;
    let away = 0;
    const sessions = new Set<string>();
    for (const n of nodes.values()) {
      sum += n.count;
      away += n.away;
      for (const h of n.sessions) sessions.add(h);
    }
    this.#bus.setRemoteCount(user, sum, [...sessions], away);
  }

  /** The table's counts: this node's own rows, and per user the other nodes' sockets. */
  async #readTable() {
    /** This node's rows, as `#localRow` writes them. */
    const mine = new Map<number, string>();
    const others = new Map<number, Map<string, Sockets>>();
    const rows = await this.#channel.sql`SELECT node, user_id, count, sessions, away
      FROM cluster_listeners`;
    for (const row of rows) {
      const user = Number(row.user_id);
      if (row.node === this.#node) mine.set(user, `${row.count} ${row.away} ${row.sessions}`);
      else if (row.count > 0) {
        let nodes = others.get(user);
        if (!nodes) others.set(user, nodes = new Map());
        nodes.set(row.node, {
          count: row.count,
          sessions: sessionsOf(row.sessions),
          away: row.away ?? 0,
        });
      }
    }
    return { mine, others };
  }

  /** This node's sockets of a user, as the table's row says them. */
  #localRow(user: number): string {
    const b = this.#bus;
    return `${b.localCount(user)} ${b.localAway(user)} ${b.localSessions(user).join(" ")}`;
  }

  #announceLocal(user: number): void {
    const b = this.#bus;
    this.#announce(user, b.localCount(user), b.localSessions(user), b.localAway(user));
  }

  #announce(user: number, count: number, sessions: readonly string[], away: number): void {
    const sql = this.#channel.sql;
    const node = this.#node;
    const column = sessions.join(" ");
    this.#writes = this.#writes.then(async () => {
      if (count > 0) {
        await sql`INSERT INTO cluster_listeners (node, user_id, count, sessions, away)
          VALUES (${node}, ${user}, ${count}, ${column}, ${away}) ON CONFLICT (node, user_id)
          DO UPDATE SET count = excluded.count, sessions = excluded.sessions, away = excluded.away`;
      } else {
        await sql`DELETE FROM cluster_listeners WHERE node = ${node} AND user_id = ${user}`;
      }
      await this.#channel.send(
        LISTENERS,
        { node, user, count, sessions: [...sessions], away } satisfies ListenersMessage,
      );
    }).catch((err) => log.warn("cluster: socket count not shared", { error: String(err) }));
  }

  /**
   * At every scan, the counts brought in line with the table: the rows of nodes that are gone are
   * deleted (and the other nodes told, so that they stop counting a dead node's sockets now), this
   * node's own rows are written again where they differ from its sockets, and the other nodes'
   * counts are read back from the table. A node whose lock session dropped (PostgreSQL restarted:
   * each node's session comes back at its own next scan) is gone to the others meanwhile, who
   * delete its rows and forget its sockets; it must say them again once back, and what was
   * announced while a LISTEN was down is read here too.
   */
  async reconcile(alive: string[]): Promise<void> {
    const sql = this.#channel.sql;
    const gone = await sql`DELETE FROM cluster_listeners WHERE NOT (node = ANY(${
      sql.array(alive)
    }::text[])) RETURNING node, user_id`;
    for (const row of gone) {
      await this.#channel.send(LISTENERS, { node: row.node, user: Number(row.user_id), count: 0 });
    }
    // Sockets told after the read began are newer than the read: that user keeps what was told
    // (a tab opened then would get no event until the next scan).
    const toldBefore = this.#told;
    const { mine, others } = await this.#readTable();
    for (const user of this.#bus.localUsers()) {
      if (mine.get(user) !== this.#localRow(user)) this.#announceLocal(user);
      mine.delete(user);
    }
    for (const user of mine.keys()) this.#announce(user, 0, [], 0);
    for (const user of new Set([...this.#remote.keys(), ...others.keys()])) {
      if ((this.#toldAt.get(user) ?? 0) > toldBefore) continue;
      this.#countRemote(user, others.get(user) ?? new Map<string, Sockets>());
    }
    // Kept only as long as a read under way can predate them.
    for (const [user, at] of this.#toldAt) if (at <= toldBefore) this.#toldAt.delete(user);
  }

  /** Stops listening and withdraws this node's sockets. */
  async stop(): Promise<void> {
    for (const un of this.#unlisten) {
      await un().catch((err) =>
        log.debug("cluster: unlisten failed at stop; the session ends with it", {
          error: String(err),
        })
      );
    }
    this.#unlisten = [];
    await this.#writes;
    const sql = this.#channel.sql;
    const mine = await sql`DELETE FROM cluster_listeners WHERE node = ${this.#node}
      RETURNING user_id`.catch(() => []);
    // The others stop counting this node's sockets now, not at their next scan.
    for (const row of mine) {
      await this.#channel.send(LISTENERS, { node: this.#node, user: Number(row.user_id), count: 0 })
        .catch((err) =>
          log.debug("cluster: could not announce a withdrawn socket; the next scan will", {
            uid: Number(row.user_id),
            error: String(err),
          })
        );
    }
  }
}
