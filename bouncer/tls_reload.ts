/**
 * A TLS certificate and key that can be replaced while listeners use them: certbot renews a
 * certificate every two months, and SIGHUP hands the new one to the listeners without a restart
 * (which would cut every attached client). Deno's TLS listener takes its certificate once, when it
 * binds, so a listener is bound again on the same port with the new pair; connections already
 * open keep the certificate they were made with.
 */

/** A PEM certificate (chain) and its private key. */
export interface TlsPem {
  cert: string;
  key: string;
}

/** The current certificate and key; `replace` tells every listener that watches. */
export class ReloadableTls implements TlsPem {
  #pem: TlsPem;
  #watchers = new Set<(pem: TlsPem) => Promise<void>>();

  constructor(pem: TlsPem) {
    this.#pem = pem;
  }

  get cert(): string {
    return this.#pem.cert;
  }

  get key(): string {
    return this.#pem.key;
  }

  /** Calls `fn` with each new pair; returns the function that stops it. */
  watch(fn: (pem: TlsPem) => Promise<void>): () => void {
    this.#watchers.add(fn);
    return () => this.#watchers.delete(fn);
  }

  /**
   * Checks the pair (a throwaway listener on a loopback port parses both and matches the key to
   * the certificate), then hands it to every watcher. A bad pair throws and changes nothing.
   */
  async replace(pem: TlsPem): Promise<void> {
    Deno.listenTls({ hostname: "127.0.0.1", port: 0, ...pem }).close();
    this.#pem = pem;
    await Promise.all([...this.#watchers].map((fn) => fn(pem)));
  }
}

/** A TLS listener as the accept loop uses it. */
export type TlsListening = AsyncIterable<Deno.Conn> & {
  readonly addr: Deno.Addr;
  close(): void;
};

/** How long a rebind waits for the port its old listener held to be free again. */
const REBIND_WAIT_MS = 5000;

/**
 * Listens with TLS on `hostname`:`port`; with a ReloadableTls, each new pair closes the listener
 * and binds a new one on the same port, and the iteration carries on across the swap.
 */
export function listenTls(
  options: { hostname: string; port: number },
  tls: TlsPem,
): TlsListening {
  if (!(tls instanceof ReloadableTls)) return Deno.listenTls({ ...options, ...tls });
  let current = Deno.listenTls({ ...options, cert: tls.cert, key: tls.key });
  const port = (current.addr as Deno.NetAddr).port;
  let closed = false;
  // A swap in progress: the accept loop waits for it instead of ending.
  let swapped: Promise<void> | undefined;
  // Deno frees the port only once the pending accept has ended.
  let acceptEnded: (() => void) | undefined;
  const unwatch = tls.watch(async (pem) => {
    if (closed) return;
    let done!: () => void;
    swapped = new Promise((r) => (done = r));
    const ended = new Promise<void>((r) => (acceptEnded = r));
    current.close();
    await ended;
    try {
      if (closed) return; // closed meanwhile: nothing to bind again
      const deadline = Date.now() + REBIND_WAIT_MS;
      for (;;) {
        try {
          current = Deno.listenTls({ ...options, port, ...pem });
          break;
        } catch (err) {
          if (!(err instanceof Deno.errors.AddrInUse) || Date.now() > deadline) {
            closed = true;
            throw new Error(
              `${options.hostname}:${port} could not be bound again (${(err as Error).message}); ` +
                "nothing listens there now: restart Parley",
            );
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    } finally {
      swapped = undefined;
      done();
    }
  });
  return {
    get addr() {
      return current.addr;
    },
    close() {
      closed = true;
      unwatch();
      current.close();
    },
    async *[Symbol.asyncIterator]() {
      while (!closed) {
        let conn: Deno.Conn;
        try {
          conn = await current.accept();
        } catch (err) {
          const swap = swapped;
          acceptEnded?.();
          acceptEnded = undefined;
          if (!swap || closed) return;
          await swap;
          if (closed) throw err;
          continue;
        }
        yield conn;
      }
    },
  };
}
