/**
 * Several nodes: an IRC client may reach any node, but only the node that runs the user's IRC
 * connection sees its lines. The node the client reached checks the login, then hands the session
 * over: the owner runs it (capabilities, burst, commands, relay, history) as if the client were
 * its own, and the client's node only carries lines both ways over the cluster's sealed channel.
 * Lines are sent in order, several per message.
 */
import { log } from "../lib/log.ts";
import type { Identity } from "./auth.ts";
import type { Credential } from "./credentials.ts";
import { type BouncerContext, Session } from "./session.ts";
import type { ClientTransport, Incoming } from "./transport.ts";

/** What the bouncer needs of the cluster (cluster/irc.ts gives it). */
export interface ClusterLink {
  readonly node: string;
  /** The node that runs the user, when it is another one (this node takes a user nobody runs). */
  elsewhere(userId: number): Promise<string | undefined>;
  /** The node that runs the user now, if any (nothing is taken). */
  ownerOf(userId: number): Promise<string | undefined>;
  /** The nodes alive now. */
  nodes(): Promise<string[]>;
  send(channel: string, message: unknown): Promise<void>;
  listen(channel: string, fn: (message: unknown) => void): Promise<() => Promise<void>>;
}

/** A registered client's state, as its node hands it over. */
interface Hello {
  userId: number;
  connectionId: string;
  identity: Identity;
  caps: string[];
  capVersion: number;
  nick: string;
  username: string;
  address: string;
  /** What the client logged in with (a revocation ends the session on both nodes). */
  credential?: Credential;
  /** An AWAY it sent before registration (draft/pre-away), its parameters. */
  away?: string[];
}

type Message =
  | { k: "open"; id: string; from: string; hello: Hello }
  | { k: "lines"; id: string; from: string; lines: string[] }
  | { k: "close"; id: string; from: string };

/** Lines per message at most (a message over the NOTIFY limit is stored in the database). */
const LINES_PER_MESSAGE = 200;
/** Sessions handed over to one node at most at once, either way. */
const MAX_TUNNELS = 10_000;
/**
 * How often a node checks that the nodes serving its clients still run their users, and that the
 * nodes whose clients it serves are still alive (ms): one killed without a word sends no `close`,
 * and its clients would wait forever, or the sessions served for it would stay (each counting
 * against its user's clients).
 */
const OWNER_CHECK_MS = 10_000;

const channelOf = (node: string) => `parley_bnc_${node}`;

/** One tunnel's end: lines out in order and batched, to the other node. */
class Outbox {
  #pending: string[] = [];
  #chain = Promise.resolve();
  #scheduled = false;

  constructor(
    readonly link: ClusterLink,
    readonly to: string,
    readonly id: string,
  ) {}

  push(line: string): void {
    this.#pending.push(line);
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#pending.length) {
      const lines = this.#pending.splice(0, LINES_PER_MESSAGE);
      this.#post({ k: "lines", id: this.id, from: this.link.node, lines });
    }
  }

  close(): void {
    this.#flush();
    this.#post({ k: "close", id: this.id, from: this.link.node });
  }

  /** One after the other: two NOTIFYs in flight on two connections could commit out of order. */
  #post(m: Message): void {
    this.#chain = this.#chain.then(() => this.link.send(channelOf(this.to), m)).catch((err) =>
      log.warn("bouncer: a line to another node was lost", { error: String(err) })
    );
  }
}

/** The owner's side: the handed-over client as a transport of a session of its own. */
class TunnelTransport implements ClientTransport {
  #incoming: string[] = [];
  #wake?: () => void;
  #closed = false;

  constructor(
    readonly address: string,
    /** The node the client is attached to. */
    readonly from: string,
    readonly out: Outbox,
    readonly onClose: () => void,
  ) {}

  /** Lines from the client, through its node. */
  feed(lines: string[]): void {
    if (this.#closed) return;
    this.#incoming.push(...lines);
    this.#wake?.();
  }

  async *lines(): AsyncIterable<Incoming> {
    while (true) {
      while (this.#incoming.length) yield { line: this.#incoming.shift()! };
      if (this.#closed) return;
      await new Promise<void>((r) => this.#wake = r);
      this.#wake = undefined;
    }
  }

  write(line: string): boolean {
    if (this.#closed) return false;
    this.out.push(line);
    return true;
  }

  /** The client's node closed it. */
  ended(): void {
    this.#closed = true;
    this.onClose();
    this.#wake?.();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose();
    this.out.close();
    this.#wake?.();
  }
}

/** The client's node's side of a handed-over session. */
export interface RemoteEnd {
  /** A line the client sent. */
  send(line: string): void;
  /** The client left. */
  close(): void;
}

/** Hands sessions over to the nodes that run their users, and runs those handed to this one. */
export class BouncerCluster {
  #next = 0;
  /** Sessions this node runs for clients on other nodes. */
  #served = new Map<string, TunnelTransport>();
  /** Clients of this node whose sessions run elsewhere: where their lines go. */
  #handed = new Map<
    string,
    { node: string; userId: number; onLine: (line: string) => void; onClose: () => void }
  >();
  #unlisten?: () => Promise<void>;
  #checker?: ReturnType<typeof setInterval>;

  constructor(readonly link: ClusterLink, readonly cx: BouncerContext) {}

  async start(): Promise<void> {
    this.#unlisten = await this.link.listen(
      channelOf(this.link.node),
      (m) => this.#receive(m as Message),
    );
    this.#checker = setInterval(() => {
      // A failed check ends nothing and runs again at the next tick; only the log shows it.
      this.#checkOwners().catch((err) =>
        log.debug("bouncer: owner check failed", { error: String(err) })
      );
      this.#checkClients().catch((err) =>
        log.debug("bouncer: client check failed", { error: String(err) })
      );
    }, OWNER_CHECK_MS);
    Deno.unrefTimer(this.#checker);
  }

  /** Ends the handed-over sessions whose node no longer runs their user. */
  async #checkOwners(): Promise<void> {
    const users = new Map<number, string>();
    for (const h of this.#handed.values()) users.set(h.userId, h.node);
    for (const [userId, node] of users) {
      // A database that does not answer ends nothing: the node may well be there.
      users.set(userId, await this.link.ownerOf(userId).catch(() => node) ?? "");
    }
    for (const h of [...this.#handed.values()]) if (users.get(h.userId) !== h.node) h.onClose();
  }

  /** Ends the sessions served for nodes that are gone (their clients went with them). */
  async #checkClients(): Promise<void> {
    if (!this.#served.size) return;
    // A database that does not answer ends nothing, as above.
    const alive = new Set(await this.link.nodes());
    for (const t of [...this.#served.values()]) if (!alive.has(t.from)) t.ended();
  }

  async stop(): Promise<void> {
    clearInterval(this.#checker);
    for (const t of [...this.#served.values()]) t.close();
    for (const h of [...this.#handed.values()]) h.onClose();
    await this.#unlisten?.().catch(() => {});
  }

  elsewhere(userId: number): Promise<string | undefined> {
    return this.link.elsewhere(userId);
  }

  /** Hands a registered client over to `node`; its lines come back to `onLine`. */
  open(
    node: string,
    hello: Hello,
    onLine: (line: string) => void,
    onClose: () => void,
  ): RemoteEnd | undefined {
    if (this.#handed.size >= MAX_TUNNELS) return undefined;
    const id = `${this.link.node}.${++this.#next}`;
    const out = new Outbox(this.link, node, id);
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      this.#handed.delete(id);
      onClose();
    };
    this.#handed.set(id, { node, userId: hello.userId, onLine, onClose: end });
    this.link.send(channelOf(node), { k: "open", id, from: this.link.node, hello })
      .catch(end);
    return {
      send: (line) => open && out.push(line),
      close: () => {
        if (!open) return;
        open = false;
        this.#handed.delete(id);
        out.close();
      },
    };
  }

  #receive(m: Message): void {
    if (m.k === "open") return void this.#serve(m.id, m.from, m.hello);
    const served = this.#served.get(m.id);
    if (served) {
      if (m.k === "lines") served.feed(m.lines);
      else served.ended();
      return;
    }
    const handed = this.#handed.get(m.id);
    if (!handed) return;
    if (m.k === "lines") { for (const l of m.lines) handed.onLine(l); }
    else handed.onClose();
  }

  /** Runs a session handed over by another node, as a client of this one. */
  async #serve(id: string, from: string, hello: Hello): Promise<void> {
    const out = new Outbox(this.link, from, id);
    if (this.#served.size >= MAX_TUNNELS) return out.close();
    const transport = new TunnelTransport(
      hello.address,
      from,
      out,
      () => this.#served.delete(id),
    );
    this.#served.set(id, transport);
    let s: Session | undefined;
    try {
      const user = await this.cx.store.users.byId(hello.userId);
      const connection = await this.cx.store.connections.get(hello.userId, hello.connectionId);
      if (!user || !connection || await this.link.elsewhere(hello.userId)) {
        return transport.close();
      }
      s = new Session(this.cx, transport);
      s.login = { user, identity: hello.identity, connection, credential: hello.credential };
      s.nick = hello.nick;
      s.username = hello.username;
      s.caps.restore(hello.caps, hello.capVersion);
      s.earlyAway = hello.away;
      await s.attach();
      await s.run();
    } catch (err) {
      log.warn("bouncer: a session from another node failed", { error: String(err) });
      s?.detach(); // uncounted, if the attach failed half-way
      transport.close();
    }
  }
}
