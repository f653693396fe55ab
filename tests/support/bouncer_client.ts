/**
 * A scripted IRC client for the bouncer's tests: connects over a real socket, sends whatever the
 * test says (registration included, so CAP and SASL can be driven step by step), and records
 * every line it receives, parsed.
 */
import net from "node:net";
import {
  type IrcMessage as Message,
  parseMessage as parseLine,
} from "../../irc/protocol/message.ts";

/** What the client needs of a connection. */
type Conn = Pick<Deno.Conn, "readable" | "write" | "close">;

/** One received line. */
export interface Received extends Message {
  raw: string;
}

/** A client of the bouncer. */
export class BouncerClient {
  readonly lines: Received[] = [];
  closed = false;
  #conn: Conn;
  #waiters: { test: (l: Received) => boolean; resolve: (l: Received) => void }[] = [];
  #closeWaiters: (() => void)[] = [];
  #encoder = new TextEncoder();

  private constructor(conn: Conn, readonly name: string) {
    this.#conn = conn;
    this.#read();
  }

  static async connect(port: number, name = "client"): Promise<BouncerClient> {
    return new BouncerClient(await Deno.connect({ hostname: "127.0.0.1", port }), name);
  }

  /**
   * Connects from another loopback address (`127.0.0.2`...), so that the listener sees another
   * client address (Deno.connect cannot choose its local address; node:net can).
   */
  static async connectFrom(port: number, source: string, name = source): Promise<BouncerClient> {
    const sock = net.connect({ host: "127.0.0.1", port, localAddress: source });
    await new Promise((resolve, reject) => {
      sock.once("connect", resolve);
      sock.once("error", reject);
    });
    sock.on("error", () => {});
    const readable = new ReadableStream<Uint8Array<ArrayBuffer>>({
      start(c) {
        sock.on("data", (d: Uint8Array) => c.enqueue(new Uint8Array(d)));
        sock.on("close", () => c.close());
      },
    });
    const conn: Conn = {
      readable,
      write: (b) =>
        new Promise((resolve, reject) => sock.write(b, (e) => e ? reject(e) : resolve(b.length))),
      close: () => void sock.destroy(),
    };
    return new BouncerClient(conn, name);
  }

  /**
   * Connects and registers with SASL PLAIN (and the given capabilities); resolves after 001 and
   * the end of the burst (the last 366, or the MOTD's end when there are no channels).
   */
  static async attach(
    port: number,
    username: string,
    password: string,
    caps: string[] = [],
    name = "client",
  ): Promise<BouncerClient> {
    return await BouncerClient.register(
      await BouncerClient.connect(port, name),
      username,
      password,
      caps,
    );
  }

  /**
   * Registers with SASL PLAIN, waiting for 001 or ERROR only: `ok` at 001, else the refusing ERROR
   * line. The client stays open either way (the caller closes it).
   */
  static async tryAttach(
    port: number,
    username: string,
    password: string,
  ): Promise<{ client: BouncerClient; ok: boolean; line: string }> {
    const c = await BouncerClient.connect(port, "try");
    await c.send("CAP LS 302");
    await c.send("NICK whoever");
    await c.send("USER u 0 * :Some One");
    await c.send("CAP REQ :sasl");
    await c.send("AUTHENTICATE PLAIN");
    await c.waitFor((l) => l.command === "AUTHENTICATE");
    await c.send(`AUTHENTICATE ${plain(username, password)}`);
    await c.send("CAP END");
    const end = await c.waitFor((l) => l.command === "001" || l.command === "ERROR");
    return { client: c, ok: end.command === "001", line: end.raw };
  }

  /** Connects over TLS, trusting `caCert` (PEM), presenting `client`'s certificate when given. */
  static async connectTls(
    port: number,
    caCert: string,
    name = "tls",
    client?: { cert: string; key: string },
  ): Promise<BouncerClient> {
    const conn = await Deno.connectTls({
      hostname: "localhost",
      port,
      caCerts: [caCert],
      ...client,
    });
    return new BouncerClient(conn, name);
  }

  /**
   * Registers a connected client with SASL PLAIN, as `attach` does; `early` lines go once the
   * capabilities are acknowledged (an AWAY of draft/pre-away).
   */
  static async register(
    c: BouncerClient,
    username: string,
    password: string,
    caps: string[] = [],
    early: string[] = [],
  ): Promise<BouncerClient> {
    await c.send("CAP LS 302");
    await c.send("NICK whoever");
    await c.send("USER u 0 * :Some One");
    await c.waitFor((l) => l.command === "CAP" && l.params[1] === "LS" && l.params[2] !== "*");
    await c.send(`CAP REQ :${["sasl", ...caps].join(" ")}`);
    await c.waitFor((l) => l.command === "CAP" && l.params[1] === "ACK");
    for (const line of early) await c.send(line);
    await c.send("AUTHENTICATE PLAIN");
    await c.waitFor((l) => l.command === "AUTHENTICATE");
    await c.send(`AUTHENTICATE ${plain(username, password)}`);
    await c.waitFor((l) => l.command === "903");
    await c.send("CAP END");
    await c.waitFor((l) => l.command === "001");
    return c;
  }

  async #read() {
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of this.#conn.readable) {
        buf += decoder.decode(chunk, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) !== -1) {
          const raw = buf.slice(0, nl).replace(/\r$/, "");
          buf = buf.slice(nl + 1);
          const m = parseLine(raw);
          if (!m) continue;
          const line = { ...m, raw };
          this.lines.push(line);
          this.#waiters = this.#waiters.filter((w) =>
            w.test(line) ? (w.resolve(line), false) : true
          );
        }
      }
    } catch { /* closed */ }
    this.closed = true;
    for (const w of this.#closeWaiters.splice(0)) w();
  }

  async send(line: string): Promise<void> {
    await this.#conn.write(this.#encoder.encode(line + "\r\n"));
  }

  /** Writes raw bytes (for lines the test means to be malformed). */
  async sendBytes(bytes: Uint8Array): Promise<void> {
    await this.#conn.write(bytes);
  }

  /** The first line (received already or later, after index `from`) that passes `test`. */
  waitFor(test: (l: Received) => boolean, from = 0, timeoutMs = 15_000): Promise<Received> {
    const seen = this.lines.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.resolve !== done);
        reject(
          new Error(
            `${this.name}: no matching line; last lines:\n` +
              this.lines.slice(-15).map((l) => l.raw).join("\n"),
          ),
        );
      }, timeoutMs);
      const done = (l: Received) => {
        clearTimeout(timer);
        resolve(l);
      };
      this.#waiters.push({ test, resolve: done });
    });
  }

  /** Resolves when the server closes the connection. */
  waitClosed(timeoutMs = 15_000): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: still open`)), timeoutMs);
      this.#closeWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    try {
      this.#conn.close();
    } catch { /* already */ }
  }
}

/** The base64 SASL PLAIN payload. */
export function plain(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`\0${username}\0${password}`);
  return btoa(String.fromCharCode(...bytes));
}
