/** A raw IRC client over a plain TCP socket: the "other person" in integration tests. */

/** One parsed line from the server. */
export interface IrcLine {
  raw: string;
  prefix: string;
  nick: string;
  command: string;
  params: string[];
}

function parse(raw: string): IrcLine {
  let rest = raw;
  if (rest.startsWith("@")) rest = rest.slice(rest.indexOf(" ") + 1);
  let prefix = "";
  if (rest.startsWith(":")) {
    const sp = rest.indexOf(" ");
    prefix = rest.slice(1, sp);
    rest = rest.slice(sp + 1);
  }
  const params: string[] = [];
  while (rest.length) {
    if (rest.startsWith(":")) {
      params.push(rest.slice(1));
      break;
    }
    const sp = rest.indexOf(" ");
    if (sp === -1) {
      params.push(rest);
      break;
    }
    params.push(rest.slice(0, sp));
    rest = rest.slice(sp + 1);
  }
  const command = params.shift()?.toUpperCase() ?? "";
  return { raw, prefix, nick: prefix.split("!")[0], command, params };
}

/** A connected, registered IRC client that records every line it receives. */
export class RawIrcClient {
  readonly lines: IrcLine[] = [];
  #conn: Deno.TcpConn;
  #waiters: { test: (l: IrcLine) => boolean; resolve: (l: IrcLine) => void }[] = [];
  #closed = false;
  #encoder = new TextEncoder();

  private constructor(conn: Deno.TcpConn, readonly nick: string) {
    this.#conn = conn;
    this.#read();
  }

  /** Connects and registers with `nick` (and a server `pass`); resolves after the welcome (001). */
  static async connect(port: number, nick: string, pass?: string): Promise<RawIrcClient> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const client = new RawIrcClient(conn, nick);
    if (pass !== undefined) await client.send(`PASS ${pass}`);
    await client.send(`NICK ${nick}`);
    await client.send(`USER ${nick} 0 * :Test ${nick}`);
    await client.waitFor((l) => l.command === "001");
    return client;
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
          if (!raw) continue;
          const line = parse(raw);
          if (line.command === "PING") this.send(`PONG :${line.params[0] ?? ""}`).catch(() => {});
          this.lines.push(line);
          this.#waiters = this.#waiters.filter((
            w,
          ) => (w.test(line) ? (w.resolve(line), false) : true));
        }
      }
    } catch { /* socket closed */ }
    this.#closed = true;
  }

  /** Sends one raw line. */
  async send(line: string): Promise<void> {
    if (this.#closed) throw new Error("IRC client is closed");
    await this.#conn.write(this.#encoder.encode(line + "\r\n"));
  }

  /** Sends bytes as they are (lines in another encoding than UTF-8, several in one write). */
  async sendBytes(bytes: Uint8Array): Promise<void> {
    if (this.#closed) throw new Error("IRC client is closed");
    await this.#conn.write(bytes);
  }

  /** Resolves with the first line (already received or future) that passes `test`. */
  waitFor(test: (l: IrcLine) => boolean, timeoutMs = 10_000): Promise<IrcLine> {
    const seen = this.lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.resolve !== done);
        reject(
          new Error(
            `${this.nick}: no matching IRC line within ${timeoutMs} ms; last lines:\n` +
              this.lines.slice(-10).map((l) => l.raw).join("\n"),
          ),
        );
      }, timeoutMs);
      const done = (l: IrcLine) => {
        clearTimeout(timer);
        resolve(l);
      };
      this.#waiters.push({ test, resolve: done });
    });
  }

  /** Whether `nick` is on the server now (ISON). */
  async online(nick: string): Promise<boolean> {
    const from = this.lines.length;
    await this.send(`ISON ${nick}`);
    const reply = await this.waitFor((l) => l.command === "303" && this.lines.indexOf(l) >= from);
    return reply.params[1].split(" ").includes(nick);
  }

  /** Joins a channel and waits until the server confirms it. */
  async join(channel: string): Promise<void> {
    await this.send(`JOIN ${channel}`);
    await this.waitFor((l) =>
      l.command === "366" && l.params[1]?.toLowerCase() === channel.toLowerCase()
    );
  }

  /** Asks NAMES until `nick` is in `channel` (another client's JOIN may still be on its way). */
  async waitForMember(channel: string, nick: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const from = this.lines.length;
      await this.send(`NAMES ${channel}`);
      await this.waitFor((l) => l.command === "366" && this.lines.indexOf(l) >= from);
      const names = this.lines.slice(from).filter((l) => l.command === "353")
        .flatMap((l) => (l.params.at(-1) ?? "").split(" ").map((n) => n.replace(/^[@+%~&]/, "")));
      if (names.some((n) => n.toLowerCase() === nick.toLowerCase())) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${nick} did not join ${channel} within ${timeoutMs} ms`);
  }

  /** Sends a PRIVMSG. */
  say(target: string, text: string): Promise<void> {
    return this.send(`PRIVMSG ${target} :${text}`);
  }

  /** Quits and closes the socket. */
  async close(): Promise<void> {
    if (!this.#closed) {
      await this.send("QUIT :bye").catch(() => {});
      try {
        this.#conn.close();
      } catch { /* closed */ }
    }
    this.#closed = true;
  }
}
