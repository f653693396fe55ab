/**
 * The bouncer's sockets: `irc://` (plain, loopback only unless allowed) and `ircs://` (TLS with a
 * PEM certificate and key), and the WebSocket clients the HTTP port hands over; each client runs
 * as a session. A bound on clients not yet registered keeps a crowd of silent sockets from
 * holding memory.
 */
import { log } from "../lib/log.ts";
import { type BouncerContext, Session } from "./session.ts";
import { type ClientTransport, SocketTransport } from "./transport.ts";
import { listenTls, type TlsListening, type TlsPem } from "./tls_reload.ts";

/** One address to listen on. */
export interface ListenAddress {
  tls: boolean;
  hostname: string;
  port: number;
}

/** Runs each client's session, counting those not yet registered. */
export class Acceptor {
  readonly sessions = new Set<Session>();
  #unregistered = 0;

  constructor(readonly cx: BouncerContext) {}

  /** Runs a client's session; refused (closed at once) past the bound of unregistered clients. */
  accept(transport: ClientTransport): void {
    if (this.#unregistered >= this.cx.limits.unregistered) {
      transport.close();
      return;
    }
    this.#unregistered++;
    let waiting = true;
    const settle = () => {
      if (waiting) this.#unregistered--;
      waiting = false;
    };
    const s = new Session(this.cx, transport, settle);
    this.sessions.add(s);
    s.run().catch(() => {}).finally(() => {
      settle();
      this.sessions.delete(s);
    });
  }

  closeAll(): void {
    for (const s of this.sessions) s.quit("Parley is shutting down");
  }
}

/** A running listener. */
export interface Listening {
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
    (async () => {
      try {
        for await (const conn of l) acceptor.accept(new SocketTransport(conn));
      } catch {
        // closed
      }
    })();
  });
  return {
    ports: listeners.map((l) => (l.addr as Deno.NetAddr).port),
    close() {
      for (const l of listeners) l.close();
    },
  };
}
