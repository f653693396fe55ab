/**
 * The bouncer's sockets: `irc://` (plain, loopback only unless allowed) and `ircs://` (TLS with a
 * PEM certificate and key), and the WebSocket clients the HTTP port hands over; each client runs
 * as a session. Bounds on clients not yet registered, per address and over all, keep a crowd of
 * silent sockets from holding memory or the door.
 */
import { log } from "../lib/log.ts";
import { plainAddress } from "../lib/address.ts";
import { type BouncerContext, Session } from "./session.ts";
import { type ClientTransport, type SocketConn, SocketTransport } from "./transport.ts";
import { acceptLoop } from "../lib/accept_loop.ts";
import { listenTls, type TlsListening, type TlsPem } from "./tls_reload.ts";

/** One address to listen on. */
export interface ListenAddress {
  tls: boolean;
  hostname: string;
  port: number;
}

/**
 * The group an address counts in: an IPv4 address alone, an IPv6 address by its /64 (what one
 * subscriber is usually given, so a host cannot dodge the bound by changing its low bits).
 *
 * @internal test seam
 */
export function addressGroup(address: string): string {
  const a = plainAddress(address);
  if (!a.includes(":")) return a;
  const [head, tail] = a.includes("::") ? a.split("::") : [a, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined
    ? left
    : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":") + "::/64";
}

/**
 * Runs each client's session, bounding those not yet registered: per address, and over all. A
 * client that has logged in is never put out to make room, and one that is attached no longer
 * counts.
 */
export class Acceptor {
  readonly sessions = new Set<Session>();
  /** Sessions not yet registered, by address group, oldest first. */
  #waiting = new Map<string, Set<Session>>();
  #count = 0;
  /** Ends a waiting session's place in the count (once). */
  #release = new Map<Session, () => void>();

  constructor(readonly cx: BouncerContext) {}

  /**
   * Runs a client's session. Refused (told, and closed) when its address has the most clients
   * not yet logged in that one address may have; past the bound over all addresses it takes the
   * place of the longest-waiting client not logged in of the address with the most.
   */
  accept(transport: ClientTransport): void {
    const { unregistered, unregisteredPerAddress } = this.cx.limits;
    const group = addressGroup(transport.peer ?? transport.address);
    const mine = this.#waiting.get(group);
    if (mine && anonymous(mine).length >= unregisteredPerAddress) {
      transport.write("ERROR :Closing link: Too many connections from your address");
      transport.close();
      return;
    }
    if (this.#count >= unregistered && !this.#makeRoom()) {
      transport.close();
      return;
    }
    const settle = () => {
      if (!this.#release.delete(s)) return;
      this.#count--;
      const set = this.#waiting.get(group)!;
      set.delete(s);
      if (!set.size) this.#waiting.delete(group);
    };
    const s = new Session(this.cx, transport, () => {
      settle();
      transport.attached?.();
    });
    this.#count++;
    this.#release.set(s, settle);
    const set = this.#waiting.get(group) ?? new Set();
    this.#waiting.set(group, set.add(s));
    this.sessions.add(s);
    s.run().catch((err) =>
      log.debug("bouncer: a client session ended on an error", { error: String(err) })
    ).finally(() => {
      settle();
      this.sessions.delete(s);
    });
  }

  /** Puts out the oldest client not logged in of the address with the most; false if none. */
  #makeRoom(): boolean {
    let victims: Session[] = [];
    for (const set of this.#waiting.values()) {
      const list = anonymous(set);
      if (list.length > victims.length) victims = list;
    }
    if (!victims.length) return false;
    // Its place is free now; its session ends in a moment.
    this.#release.get(victims[0])?.();
    victims[0].quit("Too many clients registering; try again");
    return true;
  }

  closeAll(): void {
    for (const s of this.sessions) s.quit("Parley is shutting down");
  }
}

/** The clients of a group that have not logged in, oldest first. */
function anonymous(set: Set<Session>): Session[] {
  return [...set].filter((s) => !s.login);
}

/** A running listener. */
interface Listening {
  /** The ports actually bound (the configured ones, or free ones for port 0), in order. */
  ports: number[];
  close(): void;
}

/** Opens every address and hands its clients to the acceptor until closed. */
export function listen(
  acceptor: Acceptor,
  addresses: ListenAddress[],
  /** A ReloadableTls rebinds the ircs:// listeners with each new certificate (SIGHUP). */
  tls?: TlsPem,
): Listening {
  const listeners: (Deno.Listener | TlsListening)[] = [];
  let closed = false;
  try {
    for (const a of addresses) {
      const hostname = a.hostname.replace(/^\[|\]$/g, "");
      listeners.push(
        a.tls
          ? listenTls({ hostname, port: a.port }, tls!)
          : Deno.listen({ hostname, port: a.port }),
      );
    }
  } catch (err) {
    for (const l of listeners) l.close();
    throw err;
  }
  listeners.forEach((l, i) => {
    const a = addresses[i];
    log.info("irc listening", {
      url: `${a.tls ? "ircs" : "irc"}://${a.hostname}:${(l.addr as Deno.NetAddr).port}`,
    });
    const take = (conn: SocketConn) => acceptor.accept(new SocketTransport(conn));
    if (!a.tls) acceptLoop(l as Deno.Listener, take, () => closed, "the irc:// listener");
    else {
      (async () => {
        // Its own loop accepts (tls_reload.ts); this one ends when it is closed.
        for await (const conn of l as TlsListening) take(conn);
      })();
    }
  });
  return {
    ports: listeners.map((l) => (l.addr as Deno.NetAddr).port),
    close() {
      closed = true;
      for (const l of listeners) l.close();
    },
  };
}
