/**
 * The messages between the main thread and the IRC socket thread (irc/socket/thread.ts and
 * irc/socket/worker.ts), declared once for both sides.
 */

/** Where and how a socket connects. */
export interface SocketTarget {
  /** The checked address to connect to (irc/socket/target.ts). */
  address: string;
  port: number;
  tls: boolean;
  /** The name the certificate must carry (undefined for an IP address). */
  servername?: string;
  rejectUnauthorized?: boolean;
  /** The client certificate and its private key (PEM) to present on TLS; never logged. */
  cert?: string;
  key?: string;
  /** Milliseconds without data after which "timeout" is told (0: never). */
  idleMs: number;
  /**
   * Milliseconds without data after which the thread itself sends the server a PING, once per
   * silence (0: never): a live server answers, and one that talks is not asked.
   */
  keepaliveMs?: number;
}

/** The main thread asks. */
export type ToSocketThread =
  | ({ op: "open"; id: number } & SocketTarget)
  | { op: "write"; id: number; data: string; /** Told back as "written" when sent. */ cb?: number }
  | { op: "end"; id: number }
  | { op: "destroy"; id: number }
  /** The main thread has taken `bytes` of data off its message queue. */
  | { op: "ack"; id: number; bytes: number }
  /** The main thread's own line queue is full, or has room again. */
  | { op: "pause"; id: number }
  | { op: "resume"; id: number };

/** The socket thread tells. */
export type FromSocketThread =
  /** Connected, from our `localPort` (the ident server names a connection by it). */
  | { id: number; ev: "connect"; localPort?: number }
  | { id: number; ev: "secureConnect" | "timeout" | "close" }
  | { id: number; ev: "data"; chunk: Uint8Array }
  | { id: number; ev: "error"; message: string; code?: string }
  | { id: number; ev: "written"; cb: number };
