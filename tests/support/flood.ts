/**
 * A raw IRC flood and a plain counting reader over real sockets: the burst a slow client must
 * survive (bench/irc_flood.ts; tests of bursts). Both are lean on purpose, so that the reader
 * measures the pipe (ngircd and loopback), not itself.
 */

const encoder = new TextEncoder();

/** The text of flood line `i`: numbered, with ordinary chat length. */
export function floodText(i: number): string {
  return `f${i} the quick brown fox jumps over the lazy dog, as chat lines tend to say`;
}

async function register(port: number, nick: string, channel: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(encoder.encode(`NICK ${nick}\r\nUSER ${nick} 0 * :${nick}\r\n`));
  // Read until the channel's end of NAMES (366): registered and joined.
  const decoder = new TextDecoder();
  let seen = "";
  const buf = new Uint8Array(16384);
  await conn.write(encoder.encode(`JOIN ${channel}\r\n`));
  const deadline = Date.now() + 20_000;
  while (!/ 366 \S+ \S+ :/.test(seen)) {
    if (Date.now() > deadline) throw new Error(`${nick}: no join of ${channel}:\n${seen}`);
    const n = await conn.read(buf);
    if (n === null) throw new Error(`${nick}: closed while joining:\n${seen}`);
    seen += decoder.decode(buf.subarray(0, n), { stream: true });
    for (const m of seen.matchAll(/^PING :?(\S*)/gm)) {
      await conn.write(encoder.encode(`PONG :${m[1]}\r\n`));
    }
  }
  return conn;
}

/** A joined client that sends numbered PRIVMSGs to a channel, `chunk` lines per socket write. */
export class Flooder {
  private constructor(readonly conn: Deno.TcpConn, readonly channel: string) {}

  static async connect(port: number, nick: string, channel: string): Promise<Flooder> {
    return new Flooder(await register(port, nick, channel), channel);
  }

  /** Sends lines `floodText(0)` .. `floodText(total - 1)`; resolves when all are written. */
  async send(total: number, chunk = 2000): Promise<void> {
    for (let start = 0; start < total; start += chunk) {
      let lines = "";
      for (let i = start; i < Math.min(total, start + chunk); i++) {
        lines += `PRIVMSG ${this.channel} :${floodText(i)}\r\n`;
      }
      const bytes = encoder.encode(lines);
      for (let off = 0; off < bytes.length;) off += await this.conn.write(bytes.subarray(off));
    }
  }

  close(): void {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

/**
 * A joined client that only counts the PRIVMSGs to its channel, noting when the last one came
 * and whether the server dropped it (an ERROR line, or the socket closing).
 */
export class CountingReader {
  count = 0;
  /** performance.now() of the latest counted line. */
  lastAt = 0;
  dropped = "";
  #conn: Deno.TcpConn;
  #done: Promise<void>;
  #closing = false;

  private constructor(conn: Deno.TcpConn, readonly channel: string) {
    this.#conn = conn;
    this.#done = this.#read();
  }

  static async connect(port: number, nick: string, channel: string): Promise<CountingReader> {
    return new CountingReader(await register(port, nick, channel), channel);
  }

  async #read() {
    const decoder = new TextDecoder();
    const marker = ` PRIVMSG ${this.channel} :`;
    const buf = new Uint8Array(256 * 1024);
    let tail = "";
    try {
      while (true) {
        const n = await this.#conn.read(buf);
        if (n === null) break;
        const text = tail + decoder.decode(buf.subarray(0, n), { stream: true });
        const end = text.lastIndexOf("\n") + 1;
        const whole = text.slice(0, end);
        tail = text.slice(end);
        let at = whole.indexOf(marker);
        let found = 0;
        while (at !== -1) {
          found++;
          at = whole.indexOf(marker, at + marker.length);
        }
        if (found) {
          this.count += found;
          this.lastAt = performance.now();
        }
        if (whole.includes("\nPING ") || whole.startsWith("PING ")) {
          for (const m of whole.matchAll(/^PING :?(\S*)/gm)) {
            await this.#conn.write(encoder.encode(`PONG :${m[1]}\r\n`));
          }
        }
        const error = whole.match(/^ERROR :(.*)$/m);
        if (error) this.dropped = error[1].trim();
      }
    } catch (err) {
      if (!this.#closing) this.dropped ||= String(err);
    }
    if (!this.#closing) this.dropped ||= "socket closed";
  }

  async close(): Promise<void> {
    this.#closing = true;
    try {
      this.#conn.close();
    } catch { /* closed */ }
    await this.#done;
  }
}
