/**
 * An ident server (RFC 1413) for the IRC connections this node runs. An IRC server that asks who
 * owns a connection (port 113 of the address it came from) is told the username that connection
 * registered with, so each user of a shared Parley shows their own verified ident (`alice`, not
 * `~alice`) and a network can tell them apart, ban one, or trust them, as it does users of a
 * shell host. Only connections open now are answered; the question is a line from the network,
 * bounded in size, time and count like every other input from it.
 */
import { log } from "../lib/log.ts";
import { acceptLoop } from "../lib/accept_loop.ts";
import { plainAddress } from "../lib/address.ts";

/** Longest question read (RFC 1413 asks for two numbers and a comma). */
const MAX_QUESTION = 1000;
/** How long a question may take to arrive. */
const QUESTION_MS = 10_000;
/** Questions answered at once; more are closed unanswered (a server asks once per connect). */
const MAX_OPEN = 64;
/**
 * How long a question about a connection not held yet waits for it: the server may ask before
 * the socket's thread has told this one that the connection is open (both race on a busy
 * machine), and servers wait seconds for an answer.
 */
const HOLD_WAIT_MS = 2_000;

/** A connection's key in the table: the server's address, our port, its port. */
const keyOf = (address: string, localPort: number, remotePort: number) =>
  `${plainAddress(address)} ${localPort},${remotePort}`;

/** The two ports a question names (ours, then the server's), as written; undefined if not. */
function portsOf(question: string): [number, number] | undefined {
  const m = /^\s*(\d{1,5})\s*,\s*(\d{1,5})\s*$/.exec(question);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** What an ident answer may carry: the letters of a Unix username, at most 32. */
function identOf(username: string): string | undefined {
  return username.replace(/[^A-Za-z0-9._-]/g, "").slice(0, 32) || undefined;
}

/**
 * The connections open now: the server's address, their ports, and the username they gave. A
 * question is answered only for a connection to the address that asks (RFC 1413: the host at the
 * other end), so no server learns who is connected elsewhere.
 */
export class IdentTable {
  /** `address localPort,remotePort` to the username (an object: a later holder is not undone). */
  #held = new Map<string, { ident: string }>();
  /** Questions waiting for their connection to be held, by key (at most the questions open). */
  #waiting = new Map<string, Set<() => void>>();

  /**
   * A connection to `address` from our `localPort` to its `remotePort` is open, registered as
   * `username`; returns what forgets it when it closes.
   */
  hold(address: string, localPort: number, remotePort: number, username: string): () => void {
    const ident = identOf(username);
    if (!ident) return () => {};
    const key = keyOf(address, localPort, remotePort);
    const entry = { ident };
    this.#held.set(key, entry);
    for (const wake of this.#waiting.get(key) ?? []) wake();
    this.#waiting.delete(key);
    return () => {
      if (this.#held.get(key) === entry) this.#held.delete(key);
    };
  }

  /** The ident of the connection from our `localPort` to `remotePort` of the server at `from`. */
  lookup(from: string, localPort: number, remotePort: number): string | undefined {
    return this.#held.get(keyOf(from, localPort, remotePort))?.ident;
  }

  /**
   * Resolves once the connection from our `localPort` to `remotePort` of `from` is held, or
   * after `ms`: whether it is.
   */
  held(from: string, localPort: number, remotePort: number, ms: number): Promise<boolean> {
    if (this.lookup(from, localPort, remotePort)) return Promise.resolve(true);
    const key = keyOf(from, localPort, remotePort);
    return new Promise((resolve) => {
      let waiters = this.#waiting.get(key);
      if (!waiters) this.#waiting.set(key, waiters = new Set());
      const done = () => {
        clearTimeout(timer);
        waiters!.delete(done);
        if (!waiters!.size && this.#waiting.get(key) === waiters) this.#waiting.delete(key);
        resolve(!!this.lookup(from, localPort, remotePort));
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Connections held. */
  get size(): number {
    return this.#held.size;
  }
}

/**
 * The answer to one question from `from`: `<our port> , <their port> : USERID : UNIX : <ident>`,
 * or an ERROR (RFC 1413's words) for a question that is not two ports or names no connection.
 *
 * @internal test seam
 */
export function identAnswer(table: IdentTable, from: string, question: string): string {
  const ports = portsOf(question);
  if (!ports) return "0 , 0 : ERROR : INVALID-PORT";
  const [local, remote] = ports;
  const said = `${local} , ${remote}`;
  if (local < 1 || local > 65535 || remote < 1 || remote > 65535) {
    return `${said} : ERROR : INVALID-PORT`;
  }
  const ident = table.lookup(from, local, remote);
  return ident ? `${said} : USERID : UNIX : ${ident}` : `${said} : ERROR : NO-USER`;
}

/** A running ident server. */
export interface Identd {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `table` on `hostname:port` (113 is where servers ask; below 1024 needs the right).
 * `bounds` are the defaults but in tests.
 */
export function serveIdent(
  table: IdentTable,
  hostname: string,
  port: number,
  bounds: { questionMs?: number; maxOpen?: number; holdWaitMs?: number } = {},
): Identd {
  const { questionMs = QUESTION_MS, maxOpen = MAX_OPEN, holdWaitMs = HOLD_WAIT_MS } = bounds;
  const listener = Deno.listen({ hostname, port, transport: "tcp" });
  const open = new Set<Deno.Conn>();
  const answer = async (conn: Deno.Conn) => {
    const from = (conn.remoteAddr as Deno.NetAddr).hostname;
    const timer = setTimeout(() => conn.close(), questionMs);
    try {
      const buf = new Uint8Array(MAX_QUESTION);
      let got = 0;
      let end = -1;
      while (end < 0 && got < buf.length) {
        const n = await conn.read(buf.subarray(got));
        if (n === null) return;
        got += n;
        end = buf.subarray(0, got).indexOf(0x0a);
      }
      const question = new TextDecoder().decode(buf.subarray(0, end < 0 ? got : end))
        .replace(/\r$/, "");
      // A connection being opened now may not be held yet: its question waits for it.
      const ports = portsOf(question);
      if (ports) await table.held(from, ...ports, holdWaitMs);
      const reply = identAnswer(table, from, question);
      await conn.write(new TextEncoder().encode(reply + "\r\n"));
    } catch (err) {
      // Closed by the timer, or by the asker: nothing to answer.
      log.debug("identd: a question went unanswered", { from, error: String(err) });
    } finally {
      clearTimeout(timer);
      open.delete(conn);
      try {
        conn.close();
      } catch { /* why: already closed by the timer */ }
    }
  };
  let closed = false;
  // Through a failed accept (out of descriptors), as the other listeners.
  const accepting = acceptLoop(
    listener,
    (conn) => {
      if (open.size >= maxOpen) return conn.close();
      open.add(conn);
      void answer(conn);
    },
    () => closed,
    "the ident server",
  );
  log.info("identd listening", { address: `${hostname}:${(listener.addr as Deno.NetAddr).port}` });
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      closed = true;
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* why: closing as it answered */ }
      }
      await accepting;
    },
  };
}
