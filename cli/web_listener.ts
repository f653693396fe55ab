/**
 * The daemon's HTTP(S) port: bound at once (a client never sees a refused socket while Parley
 * starts), with the usual reasons it cannot be said in one line, and, for `https://`, a new
 * certificate taken on SIGHUP. Deno's server takes its certificate when it binds, so the server
 * is stopped and bound again on the same port: for those few milliseconds new connections are
 * refused, and the requests and WebSockets the old server held end (the web client reconnects).
 */
import { ConfigError } from "../config.ts";
import { log } from "../lib/log.ts";
import { checkPair, type TlsPem } from "../bouncer/tls_reload.ts";

export type Handler = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/** A running web listener. */
export interface WebListener {
  /** Binds again with a new certificate and key (https only); throws if they cannot be used. */
  reloadTls(pem: TlsPem): Promise<void>;
  /** Stops accepting, finishes requests, resolves once every server is done. */
  stop(): Promise<void>;
  /** Resolves once stopped. */
  readonly finished: Promise<void>;
}

/** How long a rebind waits for the port the old server held to be free again. */
const REBIND_WAIT_MS = 5000;
/** The pause before a failed server is bound again, times the attempt, up to the most. */
const REBIND_PAUSE_MS = 1000;
const REBIND_PAUSE_MAX_MS = 10_000;

/** Listens, or turns the usual reasons it cannot into a one-line configuration error. */
function serve(
  options: Deno.ServeTcpOptions & Partial<TlsPem>,
  handler: Handler,
): Deno.HttpServer<Deno.NetAddr> {
  try {
    return Deno.serve(options, handler);
  } catch (err) {
    const where = `${options.hostname}:${options.port}`;
    throw listenError("PARLEY_LISTEN", where, options.port! < 1024, err);
  }
}

/**
 * A listener that could not bind, as one line naming `variable` and the address (`where`), for the
 * usual reasons; any other error as it is. `lowPort`: a port below 1024, which needs a capability.
 */
export function listenError(
  variable: string,
  where: string,
  lowPort: boolean,
  err: unknown,
): unknown {
  const reason = err instanceof Deno.errors.AddrInUse
    ? "is already in use by another program"
    : err instanceof Deno.errors.AddrNotAvailable
    ? "is not an address of this machine"
    : err instanceof Deno.errors.PermissionDenied
    ? "may not be listened on by this user" +
      (lowPort
        ? " (a port below 1024 needs root or CAP_NET_BIND_SERVICE: in a systemd unit, " +
          "AmbientCapabilities=CAP_NET_BIND_SERVICE)"
        : "")
    : /failed to lookup address/i.test(String(err))
    ? "does not resolve"
    : undefined;
  return reason ? new ConfigError(`${variable}: ${where} ${reason}`) : err;
}

/**
 * Checks a certificate and key before anything binds: a key of another certificate, or a file
 * without one, is a configuration error naming `variables`, not a rejection at the first bind.
 */
export function checkedPair(pem: TlsPem, variables: string): void {
  try {
    checkPair(pem);
  } catch (err) {
    throw new ConfigError(`${variables} cannot serve TLS: ${(err as Error).message}`);
  }
}

/** Binds `hostname`:`port` (with `tls`, HTTPS) and hands every request to `handler`. */
export function listenWeb(
  opts: { hostname: string; port: number; protocol: string; tls?: TlsPem },
  handler: Handler,
): WebListener {
  if (opts.tls) checkedPair(opts.tls, "PARLEY_TLS_CERT and PARLEY_TLS_KEY");
  let controller = new AbortController();
  const base = { hostname: opts.hostname.replace(/^\[|\]$/g, "") };
  let server = serve({
    ...base,
    port: opts.port,
    signal: controller.signal,
    onListen: ({ hostname, port }) => {
      // An IPv6 address is bracketed in a URL.
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      log.info("listening", { url: `${opts.protocol}//${host}:${port}` });
    },
    ...opts.tls,
  }, handler);
  const port = server.addr.port;
  const servers = new Set<Deno.HttpServer<Deno.NetAddr>>();
  let stopped = false;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  /** The pair in use: a reload replaces it, and a listener bound again takes it. */
  let tls = opts.tls;
  let again: ReturnType<typeof setTimeout> | undefined;
  /** Binds the port again with the pair in use; the new server then takes the requests. */
  const bindPort = (onListen: () => void) => {
    const next = new AbortController();
    server = Deno.serve({ ...base, port, signal: next.signal, onListen, ...tls }, handler);
    controller = next;
    watch(server);
  };
  /**
   * Out of file descriptors (each client holds one, and a few thousand idle clients suffice),
   * Deno's accept loop fails and the server stops listening for good while the process goes on.
   * A server that ends so is bound again, after a pause while the failure lasts, so the web comes
   * back once the connections go.
   */
  const watch = (s: Deno.HttpServer<Deno.NetAddr>) => {
    servers.add(s);
    s.finished.then(() => servers.delete(s), (err) => {
      servers.delete(s);
      if (stopped || s !== server) return;
      log.error("the web listener stopped; listening again", { error: String(err) });
      bindAgain(1);
    });
  };
  const bindAgain = (attempt: number) => {
    again = setTimeout(() => {
      again = undefined;
      if (stopped) return;
      try {
        bindPort(() => log.info("listening again", { port }));
      } catch (err) {
        if (attempt === 1) log.warn("the web listener cannot listen yet", { error: String(err) });
        bindAgain(attempt + 1);
      }
    }, Math.min(REBIND_PAUSE_MS * attempt, REBIND_PAUSE_MAX_MS));
  };
  watch(server);
  return {
    finished,
    async reloadTls(pem) {
      if (!opts.tls || stopped) return;
      // Checked first (a loopback port of its own), so a bad pair leaves the old server running.
      checkPair(pem);
      tls = pem;
      // A rebind waiting after a failure would find the port taken by this one.
      clearTimeout(again);
      again = undefined;
      // The old one ends as it finishes its requests; `watch` takes it out of `servers`.
      controller.abort();
      const deadline = Date.now() + REBIND_WAIT_MS;
      for (;;) {
        try {
          bindPort(() => {});
          break;
        } catch (err) {
          if (!(err instanceof Deno.errors.AddrInUse) || Date.now() > deadline) {
            throw new Error(
              `${base.hostname}:${port} could not be bound again (${(err as Error).message}); ` +
                "nothing listens there now: restart Parley",
            );
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(again);
      controller.abort();
      // why: a server that failed was logged by `watch`; stopping waits for the rest
      await Promise.all([...servers].map((s) => s.finished.catch(() => {})));
      finish();
    },
  };
}
