/**
 * Events across nodes. Each node tells the others how many event sockets each user has open on
 * it (`parley_listeners`, and the table `cluster_listeners` for nodes that start later); an event
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
}

/** Connects a node's bus to the other nodes. */
export class BusBridge {
  #bus: EventBus;
  #channel: PgChannel;
  #node: string;
  /** Sockets per user per other node. */
  #remote = new Map<number, Map<string, number>>();
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
        this.#setRemote(msg.node, msg.user, msg.count);
      }),
    );
    const { others } = await this.#readTable();
    for (const [user, nodes] of others) this.#countRemote(user, nodes);
    this.#bus.setRelay({
      localCount: (user, count) => this.#announce(user, count),
      relay: (user, ev) => {
        this.#channel.send(EVENTS, { node: this.#node, user, ev } satisfies EventMessage)
          .catch((err) => log.warn("cluster: event not relayed", { error: String(err) }));
      },
    });
    for (const user of this.#bus.localUsers()) this.#announce(user, this.#bus.localCount(user));
  }

  #setRemote(node: string, user: number, count: number): void {
    const nodes = this.#remote.get(user) ?? new Map<string, number>();
    if (count > 0) nodes.set(node, count);
    else nodes.delete(node);
    this.#countRemote(user, nodes);
  }

  /** Counts `nodes` (node to sockets) as the user's sockets on the other nodes. */
  #countRemote(user: number, nodes: Map<string, number>): void {
    if (nodes.size) this.#remote.set(user, nodes);
    else this.#remote.delete(user);
    let sum = 0;
    for (const n of nodes.values()) sum += n;
    this.#bus.setRemoteCount(user, sum);
  }

  /** The table's counts: this node's own rows, and per user the other nodes' sockets. */
  async #readTable() {
    const mine = new Map<number, number>();
    const others = new Map<number, Map<string, number>>();
    for (const row of await this.#channel.sql`SELECT node, user_id, count FROM cluster_listeners`) {
      const user = Number(row.user_id);
      if (row.node === this.#node) mine.set(user, row.count);
      else if (row.count > 0) {
        let nodes = others.get(user);
        if (!nodes) others.set(user, nodes = new Map());
        nodes.set(row.node, row.count);
      }
    }
    return { mine, others };
  }

  #announce(user: number, count: number): void {
    const sql = this.#channel.sql;
    const node = this.#node;
    this.#writes = this.#writes.then(async () => {
      if (count > 0) {
        await sql`INSERT INTO cluster_listeners (node, user_id, count) VALUES (${node}, ${user},
          ${count}) ON CONFLICT (node, user_id) DO UPDATE SET count = excluded.count`;
      } else {
        await sql`DELETE FROM cluster_listeners WHERE node = ${node} AND user_id = ${user}`;
      }
      await this.#channel.send(LISTENERS, { node, user, count } satisfies ListenersMessage);
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
      const count = this.#bus.localCount(user);
      if (mine.get(user) !== count) this.#announce(user, count);
      mine.delete(user);
    }
    for (const user of mine.keys()) this.#announce(user, 0);
    for (const user of new Set([...this.#remote.keys(), ...others.keys()])) {
      if ((this.#toldAt.get(user) ?? 0) > toldBefore) continue;
      this.#countRemote(user, others.get(user) ?? new Map());
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
