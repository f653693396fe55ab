/**
 * The bouncer's sockets: `irc://` (plain, loopback only unless allowed) and `ircs://` (TLS with a
 * PEM certificate and key), each accepting clients into sessions. A bound on clients not yet
 * registered keeps a crowd of silent sockets from holding memory.
 */
import { log } from "../lib/log.ts";
import { type BouncerContext, Session } from "./session.ts";
import { SocketTransport } from "./transport.ts";

/** One address to listen on. */
export interface ListenAddress {
  tls: boolean;
  hostname: string;
  port: number;
}

/** A running listener. */
export interface Listening {
  /** The ports actually bound (the configured ones, or free ones for port 0), in order. */
  ports: number[];
  close(): Promise<void>;
}

/** Opens every address and accepts clients until closed. */
export function listen(
  cx: BouncerContext,
  addresses: ListenAddress[],
  tls?: { cert: string; key: string },
): Listening {
  const listeners: Deno.Listener[] = [];
  const sessions = new Set<Session>();
  let unregistered = 0;
  for (const a of addresses) {
    const hostname = a.hostname.replace(/^\[|\]$/g, "");
    const l = a.tls
      ? Deno.listenTls({ hostname, port: a.port, cert: tls!.cert, key: tls!.key })
      : Deno.listen({ hostname, port: a.port });
    listeners.push(l);
    log.info("irc listening", {
      url: `${a.tls ? "ircs" : "irc"}://${a.hostname}:${(l.addr as Deno.NetAddr).port}`,
    });
    (async () => {
      try {
        for await (const conn of l) {
          if (unregistered >= cx.limits.unregistered) {
            conn.close();
            continue;
          }
          const s = new Session(cx, new SocketTransport(conn));
          sessions.add(s);
          unregistered++;
          let counted = true;
          const settle = () => {
            if (counted && s.registered) {
              counted = false;
              unregistered--;
            }
          };
          const watch = setInterval(settle, 250);
          s.run().catch(() => {}).finally(() => {
            clearInterval(watch);
            if (counted) unregistered--;
            sessions.delete(s);
          });
        }
      } catch {
        // closed
      }
    })();
  }
  return {
    ports: listeners.map((l) => (l.addr as Deno.NetAddr).port),
    close() {
      for (const l of listeners) l.close();
      for (const s of sessions) s.quit("Parley is shutting down");
      return Promise.resolve();
    },
  };
}
