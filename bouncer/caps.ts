/**
 * The capabilities of the listener in one table, and one client's negotiation: `CAP LS 302`
 * (values, several lines when long), REQ (all or nothing), LIST, END.
 *
 * A row says what a client is offered (and its value), what Parley needs from the server for it to
 * carry anything (asked of the server when the connection registers), and what a client without it
 * gets instead: the commands it is not sent, the tags stripped, and a rewrite of the line. A new
 * capability is one row; filter.ts applies the rows a client did not ask for.
 *
 * A row `fromServer` carries only what the server sends: it is offered before the login (the
 * connection is not known yet), then withdrawn from a client told of changes (cap-notify) while the
 * connection's server does not have it on, with `CAP DEL`, and offered again (`CAP NEW`) when a
 * server that has it registers.
 */
import { RPL_NAMREPLY, RPL_WHOREPLY } from "../irc/protocol/numerics.ts";
import { type IrcMessage } from "../irc/protocol/message.ts";

/** Every capability the table knows: offered to clients, or only asked of the server. */
export type CapName =
  | "sasl"
  | "server-time"
  | "message-tags"
  | "batch"
  | "echo-message"
  | "labeled-response"
  | "cap-notify"
  | "draft/chathistory"
  | "draft/event-playback"
  | "draft/read-marker"
  | "away-notify"
  | "account-notify"
  | "account-tag"
  | "extended-join"
  | "multi-prefix"
  | "userhost-in-names"
  | "setname"
  | "invite-notify"
  | "chghost"
  | "soju.im/bouncer-networks"
  | "soju.im/bouncer-networks-notify"
  | "soju.im/search"
  | "soju.im/webpush"
  | "draft/pre-away"
  | "extended-monitor"
  | "draft/extended-monitor"
  | "no-implicit-names"
  | "draft/no-implicit-names";

/** What filtering a line needs to know of the client's connection. */
export interface FilterContext {
  /** ISUPPORT PREFIX's symbols, strongest first. */
  prefixes: string;
  /** The user's nick on the connection. */
  myNick: string;
}

export interface CapRow {
  name: CapName;
  /** Offered to clients in CAP LS (false: only asked of the server, for Parley's own use). */
  offered: boolean;
  /** Its value in `CAP LS 302`. */
  value?: string;
  /**
   * The server capability it needs to carry anything, asked of the server; null when Parley
   * gives it itself (its own times, batches, history, echo).
   */
  upstream: CapName | null;
  /** It carries only what the server sends (`upstream`): withdrawn while the server lacks it. */
  fromServer?: true;
  /** Commands a client without it is not sent. */
  drops?: readonly string[];
  /** Tags a client without it does not get. `message-tags` owns every tag no other row names. */
  tags?: readonly string[];
  /** The line as a client without it gets it: the same, changed, or undefined for none. */
  rewrite?: (m: IrcMessage, ctx: FilterContext) => IrcMessage | undefined;
  /** What a client without it gets, in words (docs and tests read it). */
  without: string;
}

/** Every capability, in the order CAP LS lists those offered. */
export const CAPABILITIES: readonly CapRow[] = [
  {
    name: "sasl",
    offered: true,
    value: "PLAIN",
    upstream: null,
    without: "logs in with PASS",
  },
  {
    name: "server-time",
    offered: true,
    upstream: null, // every relayed line carries the time Parley stored or got it
    tags: ["time"],
    without: "no `time` tag",
  },
  {
    name: "message-tags",
    offered: true,
    upstream: "message-tags", // TAGMSG and client tags reach the server only with it
    drops: ["TAGMSG"],
    without: "no TAGMSG, no `msgid` or client (`+`) tags, nor any tag no other row names",
  },
  {
    name: "batch",
    offered: true,
    upstream: null,
    drops: ["BATCH"],
    tags: ["batch"],
    without: "batches unwrapped: no BATCH lines, no `batch` tag",
  },
  {
    name: "echo-message",
    offered: true,
    upstream: null, // Parley echoes what a client sent once it is stored (relay.ts)
    without: "its own messages are not sent back; a labeled one gets an ACK",
  },
  {
    name: "labeled-response",
    offered: true,
    upstream: null, // asked of the server too, to route answers (irc/engine/registration.ts)
    tags: ["label"],
    without: "no `label` tag",
  },
  {
    name: "cap-notify",
    offered: true,
    upstream: null,
    without: "no CAP NEW or DEL (implied by CAP LS 302)",
  },
  {
    name: "draft/chathistory",
    offered: true,
    upstream: null,
    without: "CHATHISTORY is 421; what its CLIENT name missed is replayed on attach",
  },
  {
    name: "draft/event-playback",
    offered: true,
    upstream: null,
    without: "CHATHISTORY gives messages only, no JOIN, PART, KICK, QUIT, NICK, TOPIC, MODE",
  },
  {
    name: "draft/read-marker",
    offered: true,
    upstream: null,
    drops: ["MARKREAD"],
    without: "MARKREAD is 421 and none is sent",
  },
  {
    name: "away-notify",
    offered: true,
    fromServer: true,
    upstream: "away-notify",
    drops: ["AWAY"],
    without: "no AWAY lines",
  },
  {
    name: "account-notify",
    offered: true,
    fromServer: true,
    upstream: "account-notify",
    drops: ["ACCOUNT"],
    without: "no ACCOUNT lines",
  },
  {
    name: "account-tag",
    offered: false, // Parley's stored lines do not keep the sender's account
    upstream: "account-tag",
    tags: ["account"],
    without: "no `account` tag",
  },
  {
    name: "extended-join",
    offered: true,
    fromServer: true,
    upstream: "extended-join",
    rewrite: (m) =>
      m.command === "JOIN" && m.params.length >= 3 ? { ...m, params: m.params.slice(0, 1) } : m,
    without: "JOIN without its account and real name",
  },
  {
    name: "multi-prefix",
    offered: true,
    upstream: "multi-prefix",
    rewrite: (m, ctx) => onePrefix(m, ctx.prefixes),
    without: "NAMES (353) and WHO (352) keep only the strongest prefix",
  },
  {
    name: "userhost-in-names",
    offered: false, // the attach burst's names are nicks alone
    upstream: "userhost-in-names",
    rewrite: (m) => nicksInNames(m),
    without: "NAMES (353) gives nicks without `!user@host`",
  },
  {
    name: "setname",
    offered: true,
    fromServer: true,
    upstream: "setname",
    drops: ["SETNAME"],
    without: "no SETNAME lines",
  },
  {
    name: "invite-notify",
    offered: true,
    fromServer: true,
    upstream: "invite-notify",
    rewrite: (m, ctx) =>
      m.command === "INVITE" && (m.params[0] ?? "").toLowerCase() !== ctx.myNick.toLowerCase()
        ? undefined
        : m,
    without: "only INVITEs of the user",
  },
  {
    name: "chghost",
    offered: true,
    fromServer: true,
    upstream: "chghost",
    drops: ["CHGHOST"],
    without: "no CHGHOST lines",
  },
  {
    name: "soju.im/bouncer-networks",
    offered: true,
    upstream: null,
    without: "BOUNCER is 421 or FAIL; the login must name a connection",
  },
  {
    name: "soju.im/bouncer-networks-notify",
    offered: true,
    upstream: null,
    without: "no BOUNCER NETWORK notifications",
  },
  {
    name: "soju.im/search",
    offered: true,
    upstream: null,
    without: "SEARCH is 421",
  },
  {
    name: "soju.im/webpush",
    offered: true,
    upstream: null, // Parley delivers the pushes itself, as for the web client
    without: "no VAPID token; WEBPUSH is refused",
  },
  {
    name: "draft/pre-away",
    offered: true,
    upstream: null, // presence is Parley's: `AWAY *` never reaches the server
    without: "AWAY before registration is 451; AWAY * goes to the server as written",
  },
  {
    name: "extended-monitor",
    offered: true,
    fromServer: true,
    upstream: "extended-monitor",
    // Not a filter of lines alone: the relay tells by the client's MONITOR list (monitor.ts).
    without: "AWAY, ACCOUNT, CHGHOST and SETNAME only of people in the user's channels",
  },
  {
    // The name before the specification was ratified, which servers and clients still use.
    name: "draft/extended-monitor",
    offered: true,
    fromServer: true,
    upstream: "draft/extended-monitor",
    without: "AWAY, ACCOUNT, CHGHOST and SETNAME only of people in the user's channels",
  },
  {
    name: "no-implicit-names",
    offered: true,
    // Never asked of the server: Parley keeps every channel's members for itself.
    upstream: null,
    without: "NAMES (353, 366) after each JOIN, in the attach burst too",
  },
  {
    // The name before the specification was ratified, which clients still ask for.
    name: "draft/no-implicit-names",
    offered: true,
    upstream: null,
    without: "NAMES (353, 366) after each JOIN, in the attach burst too",
  },
];

/** The client takes news of the people it watches (extended-monitor, under either name). */
export function extendedMonitor(caps: Caps): boolean {
  return caps.has("extended-monitor") || caps.has("draft/extended-monitor");
}

/** The client asked not to be sent a channel's NAMES after its JOIN (no-implicit-names). */
export function noImplicitNames(caps: Caps): boolean {
  return caps.has("no-implicit-names") || caps.has("draft/no-implicit-names");
}

/**
 * The offered rows, in the order CAP LS lists them.
 *
 * @internal test seam
 */
export const OFFERED: readonly CapRow[] = CAPABILITIES.filter((c) => c.offered);

/**
 * The capabilities Parley asks of the server so that what it offers carries something.
 *
 * @internal test seam
 */
export const UPSTREAM_CAPS: readonly string[] = [
  ...new Set(CAPABILITIES.flatMap((c) => c.upstream ? [c.upstream] : [])),
];

const NAMES = new Set<string>(OFFERED.map((o) => o.name));

/** The offered rows that carry only what the server sends. */
const FROM_SERVER = OFFERED.filter((o) => o.fromServer && o.upstream);

/** Whether a word is an offered capability's name. */
function isOffered(name: string): name is CapName {
  return NAMES.has(name);
}

/** 353's names and 352's flags keep only their strongest prefix. */
function onePrefix(m: IrcMessage, symbols: string): IrcMessage {
  const strip = (word: string) => {
    let i = 0;
    while (i < word.length && symbols.includes(word[i])) i++;
    return i > 1 ? word[0] + word.slice(i) : word;
  };
  const p = m.params;
  if (m.command === RPL_NAMREPLY && p.length >= 4) {
    return { ...m, params: [...p.slice(0, -1), p.at(-1)!.split(" ").map(strip).join(" ")] };
  }
  if (m.command === RPL_WHOREPLY && p.length >= 7) {
    const flags = p[6];
    let i = 0;
    while (i < flags.length && !symbols.includes(flags[i])) i++;
    return {
      ...m,
      params: [...p.slice(0, 6), flags.slice(0, i) + strip(flags.slice(i)), ...p.slice(7)],
    };
  }
  return m;
}

/** 353's names without `!user@host`. */
function nicksInNames(m: IrcMessage): IrcMessage {
  if (m.command !== RPL_NAMREPLY || m.params.length < 4 || !m.params.at(-1)!.includes("!")) {
    return m;
  }
  const names = m.params.at(-1)!.split(" ").map((w) => w.split("!")[0]).join(" ");
  return { ...m, params: [...m.params.slice(0, -1), names] };
}

/** At most this many bytes of capabilities per `CAP LS` line (a line is 512 with its prefix). */
const LS_LINE_BYTES = 380;

/** One client's negotiated capabilities. */
export class Caps {
  #on = new Set<CapName>();
  /** Offered rows withdrawn: the connection's server does not have them on. */
  #withdrawn = new Set<CapName>();
  /** The CAP version the client announced (302 gives values and cap-notify). */
  version = 0;
  /** Negotiation began and has not ended: registration waits for CAP END. */
  negotiating = false;

  /** `sasl`'s value for this client: PLAIN, with EXTERNAL over TLS. */
  constructor(readonly saslMechanisms: () => string = () => "PLAIN") {}

  has(name: CapName): boolean {
    return this.#on.has(name);
  }

  list(): CapName[] {
    return [...this.#on];
  }

  /** The capabilities another node negotiated with a client it hands over. */
  restore(names: string[], version: number): void {
    this.version = version;
    for (const name of names) if (isOffered(name)) this.#on.add(name);
  }

  /**
   * The `CAP * LS` parameter lists: several when they do not fit one line (all but the last are
   * sent with `*` before them, as CAP LS 302 says).
   */
  ls(version: number): string[][] {
    if (version > this.version) this.version = version;
    if (this.version >= 302) this.#on.add("cap-notify"); // implied by 302
    const words = OFFERED.filter((o) => !this.#withdrawn.has(o.name)).map((o) => {
      const value = o.name === "sasl" ? this.saslMechanisms() : o.value;
      return this.version >= 302 && value ? `${o.name}=${value}` : o.name;
    });
    const lines: string[][] = [];
    let cur: string[] = [];
    for (const w of words) {
      if (cur.length && [...cur, w].join(" ").length > LS_LINE_BYTES) {
        lines.push(cur);
        cur = [];
      }
      cur.push(w);
    }
    lines.push(cur);
    return lines;
  }

  /**
   * Follows the capabilities the connection's server has on: a `fromServer` row is withdrawn (and
   * turned off) while its server capability is off, and offered again once it is on. Only for a
   * client told of such changes (cap-notify); returns what to tell it, `CAP DEL` and `CAP NEW`.
   */
  followServer(server: ReadonlySet<string>): { removed: CapName[]; added: CapName[] } {
    const removed: CapName[] = [];
    const added: CapName[] = [];
    if (!this.has("cap-notify")) return { removed, added };
    for (const row of FROM_SERVER) {
      const on = server.has(row.upstream!);
      if (on && this.#withdrawn.delete(row.name)) added.push(row.name);
      else if (!on && !this.#withdrawn.has(row.name)) {
        this.#withdrawn.add(row.name);
        this.#on.delete(row.name);
        removed.push(row.name);
      }
    }
    return { removed, added };
  }

  /**
   * Applies a REQ: every named capability offered (and `-name` to turn one off), else none of
   * them. Returns whether it was acknowledged.
   */
  request(text: string): boolean {
    const words = text.split(" ").filter(Boolean);
    if (!words.length || words.length > OFFERED.length * 2) return false;
    const ok = words.every((w) => {
      const name = w.replace(/^-/, "");
      return isOffered(name) && !this.#withdrawn.has(name);
    });
    if (!ok) return false;
    for (const w of words) {
      if (w.startsWith("-")) this.#on.delete(w.slice(1) as CapName);
      else this.#on.add(w as CapName);
    }
    return true;
  }
}
