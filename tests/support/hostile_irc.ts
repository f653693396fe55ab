/**
 * A small scriptable IRC server on loopback for tests of hostile input: it registers whoever
 * connects (optionally offering IRCv3 capabilities) and then sends whatever the test tells it to.
 * It records every line the client sends, so tests can count replies and check their order.
 */

/** One client connected to the hostile server. */
export interface HostileClient {
  /** Lines received from the client, without CR LF. */
  readonly lines: string[];
  /** The nick the client registered with. */
  nick: string;
  /** The account it logged in to by SASL, if it did. */
  saslAccount?: string;
  /** The capabilities it was acknowledged. */
  readonly caps: Set<string>;
  /** Sends one line (CR LF added). */
  send(line: string): Promise<void>;
  /** Sends raw bytes as they are. */
  write(bytes: Uint8Array): Promise<void>;
  /** Resolves with the first received line (past or future) that passes `test`. */
  waitFor(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the client's socket has closed. */
  readonly closed: Promise<void>;
  close(): void;
}

/** The running server. */
export interface HostileIrc {
  port: number;
  /** `irc://127.0.0.1:PORT` */
  url: string;
  /** Every client that connected so far, oldest first. */
  readonly clients: HostileClient[];
  /** Resolves with the next client once it has registered (001 sent). */
  registered(): Promise<HostileClient>;
  /** Someone is on the network (their source) or not (undefined): watchers are told (MONITOR). */
  presence(nick: string, source: string | undefined): Promise<void>;
  /** Registrations from now on wait this long before the welcome (a gap longer than a reconnect). */
  delayWelcome(ms: number): void;
  /** Keeps a line for CHATHISTORY (not sent to anyone now). */
  remember(line: RememberedLine): void;
  /** The nicks a client's MONITOR list holds, casefolded (MONITOR). */
  watching(client: HostileClient): string[];
  close(): Promise<void>;
}

/** Options of startHostileIrc. */
export interface HostileOptions {
  /** Capabilities offered in CAP LS and acknowledged when requested (e.g. `server-time`). */
  caps?: string[];
  /** The ISUPPORT tokens of the 005 after the welcome (`CHANTYPES=# NETWORK=Hostile`). */
  isupport?: string;
  /** SASL PLAIN offered (`sasl=PLAIN`), and the one account and password it accepts. */
  sasl?: { account: string; password: string };
  /** Nicks already in use: answered 433. */
  taken?: string[];
  /**
   * MONITOR as a server keeps it (`MONITOR=<limit>` in ISUPPORT, one list per client, 730/731
   * when `HostileIrc.presence` changes a watched nick).
   */
  monitor?: { limit: number };
  /**
   * draft/chathistory as a server keeps it: `CHATHISTORY=<limit>` in ISUPPORT, and BETWEEN and
   * TARGETS answered from the lines `HostileIrc.remember` was given (the capability itself is
   * offered only when `caps` names it).
   */
  history?: {
    limit: number;
    /** Answers with every line it has, past the limit asked (a server not to be followed). */
    unbounded?: boolean;
  };
}

/**
 * A line the server keeps for CHATHISTORY: a message, or (played back only to a client with
 * draft/event-playback) a channel event.
 */
export interface RememberedLine {
  /** ISO 8601, the line's `time`. */
  time: string;
  msgid: string;
  /** `nick!user@host` */
  source: string;
  command: "PRIVMSG" | "NOTICE" | "JOIN" | "PART" | "KICK" | "QUIT" | "NICK" | "TOPIC" | "MODE";
  /** The conversation it is in (a QUIT's or a NICK's: a channel the person was in). */
  target: string;
  /** A message's text. */
  text?: string;
  /** An event's parameters, the last one trailing (`["#chan", "bye"]` for a PART). */
  params?: string[];
}

const SERVER = "irc.hostile.test";

/**
 * Answers the user's next JOIN of `channel` as a server does: the JOIN, the names (`members`,
 * the user among them), their end.
 */
export async function answerJoin(
  c: HostileClient,
  channel = "#chan",
  members = "alice bob",
): Promise<void> {
  // One channel of a list (`JOIN #a,#b`: a rejoin) counts.
  await c.waitFor((l) => l.startsWith("JOIN ") && l.split(" ")[1].split(",").includes(channel));
  await c.send(`:alice!alice@host JOIN ${channel}`);
  await c.send(`:${SERVER} 353 alice = ${channel} :${members}`);
  await c.send(`:${SERVER} 366 alice ${channel} :End of /NAMES list.`);
}
const encoder = new TextEncoder();

/** Starts the server on 127.0.0.1 on a free port. */
export function startHostileIrc(opts: HostileOptions = {}): HostileIrc {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const clients: HostileClient[] = [];
  const sockets = new Set<Deno.Conn>();
  let waiting: ((c: HostileClient) => void)[] = [];
  /** Who is online (casefolded nick to source), and each client's MONITOR list. */
  const people = new Map<string, string>();
  const lists = new Map<HostileClient, Set<string>>();
  const kept: RememberedLine[] = [];
  let welcomeDelay = 0;
  let batches = 0;
  const ready: HostileClient[] = [];

  function onRegistered(client: HostileClient) {
    const w = waiting.shift();
    if (w) w(client);
    else ready.push(client);
  }

  function serve(conn: Deno.Conn) {
    sockets.add(conn);
    const lines: string[] = [];
    let waiters: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];
    let closedResolve!: () => void;
    const closed = new Promise<void>((r) => (closedResolve = r));
    let writing = Promise.resolve();
    const client: HostileClient = {
      lines,
      nick: "",
      caps: new Set(),
      send: (line) => client.write(encoder.encode(line + "\r\n")),
      write(bytes) {
        // Writes are chained so lines never interleave.
        writing = writing.then(async () => {
          for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
        });
        return writing;
      },
      waitFor(test, timeoutMs = 10_000) {
        const seen = lines.find(test);
        if (seen !== undefined) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            waiters = waiters.filter((w) => w.resolve !== done);
            reject(new Error(`no matching line; last: ${lines.slice(-5).join(" | ")}`));
          }, timeoutMs);
          const done = (l: string) => {
            clearTimeout(timer);
            resolve(l);
          };
          waiters.push({ test, resolve: done });
        });
      },
      closed,
      close() {
        try {
          conn.close();
        } catch { /* closed */ }
      },
    };
    clients.push(client);
    const offered = [...(opts.caps ?? []), ...(opts.sasl ? ["sasl=PLAIN"] : [])];
    const capName = (c: string) => c.split("=")[0];
    let gotUser = false;
    let capPending = false;
    let welcomed = false;
    const welcome = async () => {
      if (welcomed || !client.nick || !gotUser || capPending) return;
      welcomed = true;
      if (welcomeDelay) await new Promise((r) => setTimeout(r, welcomeDelay));
      const n = client.nick;
      await client.send(`:${SERVER} 001 ${n} :Welcome to the hostile test network ${n}`);
      const isupport = (opts.isupport ?? "CHANTYPES=# NETWORK=Hostile") +
        (opts.monitor ? ` MONITOR=${opts.monitor.limit}` : "") +
        (opts.history ? ` CHATHISTORY=${opts.history.limit}` : "");
      await client.send(`:${SERVER} 005 ${n} ${isupport} :are supported`);
      await client.send(`:${SERVER} 422 ${n} :MOTD File is missing`);
      onRegistered(client);
    };
    const handle = async (line: string) => {
      const [command, ...params] = line.split(" ");
      switch (command.toUpperCase()) {
        case "CAP":
          if (params[0] === "LS") {
            capPending = true;
            await client.send(`:${SERVER} CAP * LS :${offered.join(" ")}`);
          } else if (params[0] === "REQ") {
            const wanted = params.slice(1).join(" ").replace(/^:/, "").split(" ");
            const ok = wanted.every((c) => offered.some((o) => capName(o) === c));
            if (ok) { for (const c of wanted) client.caps.add(c); }
            await client.send(`:${SERVER} CAP * ${ok ? "ACK" : "NAK"} :${wanted.join(" ")}`);
          } else if (params[0] === "END") {
            capPending = false;
            await welcome();
          }
          break;
        case "NICK": {
          const nick = params[0].replace(/^:/, "");
          if (opts.taken?.includes(nick)) {
            await client.send(
              `:${SERVER} 433 ${client.nick || "*"} ${nick} :Nickname is already in use`,
            );
            break;
          }
          client.nick = nick;
          await welcome();
          break;
        }
        case "AUTHENTICATE": {
          const who = client.nick || "*";
          if (params[0] === "PLAIN") await client.send("AUTHENTICATE +");
          else if (opts.sasl) {
            const [, account, password] = atob(params[0]).split("\0");
            if (account === opts.sasl.account && password === opts.sasl.password) {
              client.saslAccount = account;
              await client.send(
                `:${SERVER} 900 ${who} ${who}!u@h ${account} :You are now logged in`,
              );
              await client.send(`:${SERVER} 903 ${who} :SASL authentication successful`);
            } else await client.send(`:${SERVER} 904 ${who} :SASL authentication failed`);
          }
          break;
        }
        case "USER":
          gotUser = true;
          await welcome();
          break;
        case "PING":
          await client.send(`:${SERVER} PONG ${SERVER} ${params.join(" ")}`);
          break;
        case "MONITOR":
          if (opts.monitor) await monitor(client, params[0], params[1]?.replace(/^:/, ""));
          break;
        case "CHATHISTORY":
          if (opts.history) await history(client, params);
          break;
      }
    };
    (async () => {
      const decoder = new TextDecoder();
      let buf = "";
      try {
        for await (const chunk of conn.readable) {
          buf += decoder.decode(chunk, { stream: true });
          let nl;
          while ((nl = buf.indexOf("\n")) !== -1) {
            const line = buf.slice(0, nl).replace(/\r$/, "");
            buf = buf.slice(nl + 1);
            lines.push(line);
            waiters = waiters.filter((w) => (w.test(line) ? (w.resolve(line), false) : true));
            await handle(line).catch(() => {});
          }
        }
      } catch { /* closed */ }
      sockets.delete(conn);
      lists.delete(client);
      closedResolve();
    })();
  }

  async function monitor(client: HostileClient, sub: string, arg = "") {
    const n = client.nick;
    let list = lists.get(client);
    if (!list) lists.set(client, list = new Set());
    const targets = arg.split(",").filter(Boolean);
    switch (sub.toUpperCase()) {
      case "+": {
        const over = targets.filter((t) => !list.has(t.toLowerCase())).slice(
          Math.max(0, opts.monitor!.limit - list.size),
        );
        if (over.length) {
          await client.send(`:${SERVER} 734 ${n} ${opts.monitor!.limit} ${over.join(",")} :full`);
        }
        const added = targets.filter((t) => !over.includes(t));
        for (const t of added) list.add(t.toLowerCase());
        const on = added.filter((t) => people.has(t.toLowerCase()));
        const off = added.filter((t) => !people.has(t.toLowerCase()));
        if (on.length) {
          await client.send(
            `:${SERVER} 730 ${n} :${on.map((t) => people.get(t.toLowerCase())).join(",")}`,
          );
        }
        if (off.length) await client.send(`:${SERVER} 731 ${n} :${off.join(",")}`);
        break;
      }
      case "-":
        for (const t of targets) list.delete(t.toLowerCase());
        break;
      case "C":
        list.clear();
        break;
      case "L":
        if (list.size) await client.send(`:${SERVER} 732 ${n} :${[...list].join(",")}`);
        await client.send(`:${SERVER} 733 ${n} :End of MONITOR list`);
        break;
    }
  }

  /** BETWEEN (exclusive bounds, oldest first) and TARGETS, as draft/chathistory answers them. */
  async function history(client: HostileClient, params: string[]) {
    const n = client.nick.toLowerCase();
    const time = (p: string) => Date.parse(p.replace(/^timestamp=/, ""));
    const between = (l: RememberedLine, a: number, b: number) => {
      const t = Date.parse(l.time);
      return t > Math.min(a, b) && t < Math.max(a, b);
    };
    /** The conversation a line is in, as the client sees it. */
    const where = (l: RememberedLine) =>
      l.target.startsWith("#")
        ? l.target.toLowerCase()
        : l.target.toLowerCase() === n
        ? l.source.split("!")[0].toLowerCase()
        : l.target.toLowerCase();
    const id = `h${++batches}`;
    const [sub, ...rest] = params;
    if (sub === "BETWEEN") {
      const [target, a, b, limit] = rest;
      const events = client.caps.has("draft/event-playback");
      const lines = kept.filter((l) =>
        where(l) === target.toLowerCase() && between(l, time(a), time(b)) &&
        (events || l.command === "PRIVMSG" || l.command === "NOTICE")
      ).slice(
        0,
        opts.history!.unbounded ? undefined : Math.min(Number(limit), opts.history!.limit),
      );
      await client.send(`:${SERVER} BATCH +${id} chathistory ${target}`);
      for (const l of lines) {
        const params = l.params ?? [l.target, l.text ?? ""];
        const rest = params.map((p, i) => i === params.length - 1 ? `:${p}` : p).join(" ");
        await client.send(
          `@batch=${id};time=${l.time};msgid=${l.msgid} :${l.source} ${l.command} ${rest}`,
        );
      }
      await client.send(`:${SERVER} BATCH -${id}`);
    } else if (sub === "TARGETS") {
      const [a, b, limit] = rest;
      const last = new Map<string, string>();
      for (const l of kept) if (between(l, time(a), time(b))) last.set(where(l), l.time);
      await client.send(`:${SERVER} BATCH +${id} draft/chathistory-targets`);
      for (const [target, t] of [...last].slice(0, Number(limit))) {
        await client.send(`@batch=${id} :${SERVER} CHATHISTORY TARGETS ${target} ${t}`);
      }
      await client.send(`:${SERVER} BATCH -${id}`);
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) serve(conn);
    } catch { /* listener closed */ }
  })();

  return {
    port,
    url: `irc://127.0.0.1:${port}`,
    clients,
    registered() {
      const c = ready.shift();
      if (c) return Promise.resolve(c);
      return new Promise((resolve) => waiting.push(resolve));
    },
    async presence(nick, source) {
      const k = nick.toLowerCase();
      if (source) people.set(k, source);
      else people.delete(k);
      for (const [c, list] of lists) {
        if (!list.has(k)) continue;
        await c.send(
          `:${SERVER} ${source ? `730 ${c.nick} :${source}` : `731 ${c.nick} :${nick}`}`,
        );
      }
    },
    watching: (client) => [...lists.get(client) ?? []].sort(),
    remember: (line) => void kept.push(line),
    delayWelcome: (ms) => void (welcomeDelay = ms),
    async close() {
      listener.close();
      for (const s of sockets) {
        try {
          s.close();
        } catch { /* closed */ }
      }
      waiting = [];
      await accepting;
    },
  };
}
