/**
 * IRC on a node of a cluster: what the app asks of IRC for a user runs here when this node runs
 * the user (or nobody does, and this node takes the user), else on the node that does, through
 * a forwarded call. Records travel by id; the owner reads them from the shared database.
 */
import { missing } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import type {
  FirstConversation,
  IrcControl,
  IrcStats,
  LiveView,
  SendOptions,
} from "../irc/control.ts";
import type { IrcManager } from "../irc/manager.ts";
import type { CommandResult } from "../irc/chat/commands.ts";
import type { EventBus } from "../lib/bus.ts";
import type { ConnectionRecord } from "../store/connections.ts";
import type { PgStore } from "../store/pg/mod.ts";
import { PgChannel } from "./channel.ts";
import { Ownership } from "./ownership.ts";
import { BusBridge } from "./bus_bridge.ts";
import { MovedError, Rpc } from "./rpc.ts";
import { shareRevocations } from "./revocations.ts";
import { shareDetach } from "./detach.ts";
import type { Revocations } from "../bouncer/credentials.ts";

/** What of the login throttle (http/throttle.ts) the nodes share. */
export interface SharedThrottle {
  share?: (kind: "fail" | "succeed", email: string, address: string, now: number) => void;
  fail(email: string, address: string, now: number, shared: boolean): void;
  succeed(email: string, address: string, shared: boolean, began?: number): void;
}

/** A node's IRC: local for the users it runs, forwarded for the others. */
export class ClusterIrc implements IrcControl {
  readonly nodeId = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  #local: IrcManager;
  #store: PgStore;
  #ownership: Ownership;
  #bridge: BusBridge;
  #rpc: Rpc;
  #channel: PgChannel;
  #ready?: Promise<void>;
  #stopped = false;
  /** Started: listening, and counted by the other nodes. */
  #joined = false;
  /** More channels to listen on at start, and how to stop each. */
  #listeners: (() => Promise<() => Promise<void>>)[] = [];
  #unlisten: (() => Promise<void>)[] = [];

  constructor(
    local: IrcManager,
    store: PgStore,
    bus: EventBus,
    scanMs: number,
    shared: { secret: string; loginThrottle?: SharedThrottle; revocations?: Revocations },
  ) {
    this.#local = local;
    this.#store = store;
    this.#channel = new PgChannel(store.sql, shared.secret);
    this.#bridge = new BusBridge(bus, this.#channel, this.nodeId);
    this.#ownership = new Ownership(
      store.url,
      store.sql,
      this.nodeId,
      {
        acquired: (userId) => local.startUser(userId),
        lost: (userId) => local.stopUser(userId, "This Parley node lost its database."),
        scanned: async (nodes) => {
          await this.#bridge.reconcile(nodes);
          await this.#channel.prune();
        },
      },
      scanMs,
      shared.secret,
    );
    const record = async (id: number, userId: number) => {
      if (!this.#ownership.owns(userId)) throw new MovedError("not running this user");
      const r = await store.connections.byId(id);
      if (!r || r.userId !== userId) throw missing("No such connection.");
      return r;
    };
    const mine = (userId: number) => {
      if (!this.#ownership.owns(userId)) throw new MovedError("not running this user");
    };
    if (shared.loginThrottle) this.#shareThrottle(shared.loginThrottle);
    if (shared.revocations) {
      this.#listeners.push(
        shareRevocations(this.#channel, this.nodeId, shared.revocations, () => this.#init()),
      );
    }
    this.#listeners.push(shareDetach(this.#channel, this.nodeId, bus));
    this.#rpc = new Rpc(this.#channel, this.nodeId, {
      view: async (id: number, userId: number) => local.view(await record(id, userId)),
      states: (userId: number) => {
        mine(userId);
        return local.states(userId).then((m) => [...m]);
      },
      created: async (id: number, userId: number, conversations: FirstConversation[]) =>
        local.created(await record(id, userId), conversations),
      applyRecord: async (id: number, userId: number, restart: string | null, wait: boolean) =>
        local.applyRecord(await record(id, userId), restart ?? undefined, wait),
      drop: async (id: number, userId: number) => local.drop(await record(id, userId)),
      userDeleted: async (userId: number) => {
        mine(userId);
        // From memory: asked by `parley user delete`, which deletes the rows once this answered.
        await local.stopUser(userId, "Connection removed.");
        await this.#ownership.retire(userId);
      },
      userSuspended: (userId: number, suspended: boolean) => {
        mine(userId);
        return local.userSuspended(userId, suspended);
      },
      send: (
        userId: number,
        connectionId: string,
        conversationId: string,
        message: string,
        opts?: SendOptions | null,
      ) => {
        mine(userId);
        return local.send(userId, connectionId, conversationId, message, opts ?? undefined);
      },
    });
  }

  /**
   * Failed logins count on every node: each is sent to the others, so that guessing a password
   * through several nodes is as slow as through one.
   */
  #shareThrottle(throttle: SharedThrottle): void {
    const channel = "parley_logins";
    // One at a time, so that an attempt's success never overtakes the failure it began as.
    let sent = Promise.resolve();
    throttle.share = (kind, email, address, now) => {
      sent = sent.then(() => this.#init()).then(() =>
        this.#channel.send(channel, { node: this.nodeId, kind, email, address, now })
      ).catch((err) => log.warn("cluster: login failure not shared", { error: String(err) }));
    };
    this.#listeners.push(() =>
      this.#channel.listen(channel, (m) => {
        const msg = m as {
          node: string;
          kind: string;
          email: string;
          address: string;
          now: number;
        };
        if (msg.node === this.nodeId) return;
        if (msg.kind === "fail") throttle.fail(msg.email, msg.address, msg.now, true);
        else throttle.succeed(msg.email, msg.address, true, msg.now);
      })
    );
  }

  /** Listens for the other nodes, then takes this node's share of users. */
  #init(): Promise<void> {
    this.#ready ??= (async () => {
      await this.#rpc.start();
      await this.#bridge.start();
      for (const listen of this.#listeners) this.#unlisten.push(await listen());
      await this.#ownership.start();
      this.#joined = true;
      log.info("cluster node started", { node: this.nodeId });
    })();
    return this.#ready;
  }

  /**
   * Runs `here` when this node runs the user (taking a user nobody runs), else calls `method` on
   * the node that does; once more if that node gave the user up meanwhile.
   */
  async #route<T>(
    userId: number,
    method: string,
    args: unknown[],
    here: () => Promise<T>,
    claim = true,
  ) {
    await this.#init();
    for (let attempt = 0;; attempt++) {
      // Stopping (drop, a deleted user) needs no owner: when nobody runs the user, nothing runs.
      const owner = claim
        ? await this.#ownership.claim(userId)
        : await this.#ownership.ownerOf(userId) ?? this.nodeId;
      if (owner === this.nodeId) return await here();
      try {
        return await this.#rpc.call(owner, method, args) as T;
      } catch (err) {
        if (!(err instanceof MovedError) || attempt > 0) throw err;
      }
    }
  }

  start(): Promise<void> {
    return this.#init();
  }

  stats(): IrcStats {
    return this.#local.stats();
  }

  notReady(): string | undefined {
    if (this.#stopped) return "the node is stopping";
    if (!this.#joined) return "the node has not joined the cluster yet";
    if (!this.#ownership.sessionOpen) return "the node's lock session on PostgreSQL is not open";
    return undefined;
  }

  async stop(message?: string): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#local.stop(message);
    if (!this.#ready) return;
    // why: a start that failed was reported to whoever started it; stopping only waits for it.
    await this.#ready.catch(() => {});
    await this.#ownership.stop();
    await this.#bridge.stop();
    await this.#rpc.stop();
    for (const un of this.#unlisten) {
      await un().catch((err) =>
        log.debug("cluster: unlisten failed at stop; the session ends with it", {
          error: String(err),
        })
      );
    }
  }

  view(record: ConnectionRecord): Promise<LiveView> {
    return this.#route(
      record.userId,
      "view",
      [record.id, record.userId],
      () => this.#local.view(record),
    );
  }

  async states(userId: number): Promise<Map<number, string>> {
    const entries = await this.#route(
      userId,
      "states",
      [userId],
      async () => [...await this.#local.states(userId)],
    );
    return new Map(entries);
  }

  created(record: ConnectionRecord, conversations: readonly FirstConversation[]): Promise<void> {
    return this.#route(
      record.userId,
      "created",
      [record.id, record.userId, conversations],
      () => this.#local.created(record, conversations),
    );
  }

  applyRecord(record: ConnectionRecord, restart: string | undefined, wait: boolean) {
    return this.#route(
      record.userId,
      "applyRecord",
      [record.id, record.userId, restart ?? null, wait],
      () => this.#local.applyRecord(record, restart, wait),
    );
  }

  drop(record: ConnectionRecord): Promise<void> {
    return this.#route(
      record.userId,
      "drop",
      [record.id, record.userId],
      () => this.#local.drop(record),
      false,
    );
  }

  async userDeleted(userId: number): Promise<void> {
    await this.#route(userId, "userDeleted", [userId], async () => {
      await this.#local.userDeleted(userId);
      await this.#ownership.retire(userId);
    }, false);
  }

  /**
   * On the node that runs the user. A suspended user's lock stays where it is (nothing of theirs
   * runs, and no scan takes them); a user back is taken by this node when nobody runs them.
   */
  userSuspended(userId: number, suspended: boolean): Promise<void> {
    return this.#route(
      userId,
      "userSuspended",
      [userId, suspended],
      () => this.#local.userSuspended(userId, suspended),
      !suspended,
    );
  }

  send(
    userId: number,
    connectionId: string,
    conversationId: string,
    message: string,
    opts?: SendOptions,
  ): Promise<CommandResult> {
    return this.#route(
      userId,
      "send",
      [userId, connectionId, conversationId, message, opts],
      () => this.#local.send(userId, connectionId, conversationId, message, opts),
    );
  }

  state(connectionRowId: number): string {
    return this.#local.state(connectionRowId);
  }

  /**
   * What the bouncer listener needs to hand an IRC client over to the node that runs its user:
   * that node, and the sealed channel.
   */
  bouncerLink() {
    return {
      node: this.nodeId,
      elsewhere: async (userId: number) => {
        await this.#init();
        const owner = await this.#ownership.claim(userId);
        return owner === this.nodeId ? undefined : owner;
      },
      ownerOf: (userId: number) => this.#ownership.ownerOf(userId),
      nodes: async () => {
        await this.#init();
        return await this.#ownership.nodes();
      },
      send: (channel: string, message: unknown) => this.#channel.send(channel, message),
      listen: (channel: string, fn: (message: unknown) => void) =>
        this.#channel.listen(channel, fn),
    };
  }
}
