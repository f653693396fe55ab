/**
 * A TLS certificate and key that can be replaced while listeners use them: certbot renews a
 * certificate every two months, and SIGHUP hands the new one to the listeners without a restart
 * (which would cut every attached client): new connections get the new pair, connections already
 * open keep the one they were made with.
 *
 * The listener is node:tls's, not Deno's: it asks each client for a certificate (without requiring
 * one, and trusting none: a certificate is known by its fingerprint, registered by its user), which
 * SASL EXTERNAL logs in with; Deno's TLS listener cannot ask. Its sockets are handed on as the
 * accept loop's connections, with the client's certificate.
 */
import tls from "node:tls";
import { Duplex, Readable } from "node:stream";
import { acceptLoop } from "../lib/accept_loop.ts";

/** A PEM certificate (chain) and its private key. */
export interface TlsPem {
  cert: string;
  key: string;
}

/**
 * Throws when the pair cannot serve TLS (a key of another certificate, no certificate in the
 * file): a throwaway listener on a loopback port parses both and matches them. node:tls would
 * take such a pair and fail every handshake, saying nothing.
 */
export function checkPair(pem: TlsPem): void {
  Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert: pem.cert, key: pem.key }).close();
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
    checkPair(pem);
    this.#pem = pem;
    await Promise.all([...this.#watchers].map((fn) => fn(pem)));
  }
}

/** A connection as the accept loop hands it to a transport. */
interface TlsClientConn {
  readonly readable: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly remoteAddr: Deno.NetAddr;
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
  /** Over TLS (the client may log in with SASL EXTERNAL). */
  readonly tls: true;
  /** The DER of the certificate the client presented, if any. */
  readonly certificate?: Uint8Array;
}

/** A TLS listener as the accept loop uses it. */
export type TlsListening = AsyncIterable<TlsClientConn> & {
  readonly addr: Deno.Addr;
  close(): void;
};

/** How long a client has to finish its TLS handshake. */
const HANDSHAKE_MS = 30_000;

/**
 * A client's TLS socket as a connection of the accept loop, handed on at once (so the listener's
 * bounds on clients not yet registered count it while it shakes hands); its lines and its
 * certificate come after the handshake.
 */
function asConn(socket: tls.TLSSocket, remoteAddr: Deno.NetAddr): TlsClientConn {
  let secure = false;
  let certificate: Uint8Array | undefined;
  socket.once("secure", () => {
    secure = true;
    const peer = socket.getPeerCertificate(true);
    const raw = peer && "raw" in peer ? peer.raw : undefined;
    if (raw?.length) certificate = new Uint8Array(raw);
  });
  return {
    readable: Readable.toWeb(socket) as ReadableStream<Uint8Array<ArrayBuffer>>,
    remoteAddr,
    write: (bytes) =>
      new Promise((resolve, reject) =>
        socket.write(bytes, (err) => err ? reject(err) : resolve(bytes.length))
      ),
    // What was written goes first; a socket still shaking hands has nothing to flush.
    close: () => void (secure ? socket.destroySoon() : socket.destroy()),
    tls: true,
    get certificate() {
      return certificate;
    },
  };
}

/**
 * Listens with TLS on `hostname`:`port` (bound at once: a taken port throws here), asking each
 * client for a certificate; with a ReloadableTls, each new pair is used from the next connection
 * on. The TCP socket is Deno's; node:tls runs the TLS over it.
 */
export function listenTls(options: { hostname: string; port: number }, pem: TlsPem): TlsListening {
  checkPair(pem);
  const listener = Deno.listen(options);
  let context = tls.createSecureContext({ cert: pem.cert, key: pem.key });
  const unwatch = pem instanceof ReloadableTls
    ? pem.watch((next) => {
      context = tls.createSecureContext({ cert: next.cert, key: next.key });
      return Promise.resolve();
    })
    : () => {};
  const ready: TlsClientConn[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const handshake = (conn: Deno.Conn) => {
    const raw = Duplex.fromWeb({ readable: conn.readable, writable: conn.writable });
    raw.on("error", () => {});
    const socket = new tls.TLSSocket(raw, {
      isServer: true,
      secureContext: context,
      requestCert: true,
      // Any certificate, or none: it is the user's registration that makes one log in.
      rejectUnauthorized: false,
    });
    socket.on("error", () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), HANDSHAKE_MS);
    socket.once("secure", () => clearTimeout(timer));
    socket.once("close", () => clearTimeout(timer));
    ready.push(asConn(socket, conn.remoteAddr as Deno.NetAddr));
    wake?.();
  };
  // A handshake's errors end only its socket.
  acceptLoop(listener, handshake, () => closed, "the ircs:// listener");
  return {
    addr: listener.addr,
    close() {
      if (closed) return;
      closed = true;
      unwatch();
      listener.close();
      for (const conn of ready.splice(0)) conn.close();
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      while (!closed) {
        const next = ready.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
}
