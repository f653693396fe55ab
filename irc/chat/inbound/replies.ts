/**
 * Replies of several lines (NAMES, WHO, WHOIS, MOTD, a ban list), gathered per connection until
 * their end numeric, whose handler gets them all. A server decides how many lines it sends, how
 * long they are and whether the end ever comes: each gathering is bounded in lines and in
 * characters, a connection in open gatherings and in their characters together, and one left open
 * too long is dropped when the next one starts (no timer per connection).
 */
import type { IrcMessage as Message } from "../../protocol/message.ts";
import {
  RPL_AWAY,
  RPL_BANLIST,
  RPL_ENDOFBANLIST,
  RPL_ENDOFMOTD,
  RPL_ENDOFNAMES,
  RPL_ENDOFWHO,
  RPL_ENDOFWHOIS,
  RPL_MOTD,
  RPL_MOTDSTART,
  RPL_NAMREPLY,
  RPL_WHOREPLY,
} from "../../protocol/numerics.ts";
import { WHOIS_LINES } from "../../protocol/whois.ts";

/** How one kind of reply is gathered: its lines, the numeric ending it, its bound. */
interface Kind {
  /** The numerics of its lines (the first one seen opens the gathering). */
  items: readonly string[];
  /** Which parameter names what the reply is about (a channel, a nick), or -1 for none. */
  key: number;
  /** Most lines kept; the rest are dropped (the reply is marked cut). */
  max: number;
}

/**
 * The multi-line replies, by their end numeric.
 *
 * @internal test seam
 */
const GATHERED: Readonly<Record<string, Kind>> = {
  // 20,000 members (presence.ts's bound) at a few dozen a line.
  [RPL_ENDOFNAMES]: { items: [RPL_NAMREPLY], key: 1, max: 2_000 },
  // Parley's own WHO after a join: MAX_WHO_MEMBERS of them are read.
  [RPL_ENDOFWHO]: { items: [RPL_WHOREPLY], key: -1, max: 5_000 },
  [RPL_ENDOFWHOIS]: {
    items: [...WHOIS_LINES, RPL_AWAY],
    key: 1,
    max: 100,
  },
  [RPL_ENDOFMOTD]: { items: [RPL_MOTDSTART, RPL_MOTD], key: -1, max: 1_000 },
  [RPL_ENDOFBANLIST]: { items: [RPL_BANLIST], key: 1, max: 1_000 },
};

/**
 * Most gatherings open at once on one connection; the oldest gives way.
 *
 * @internal test seam
 */
export const MAX_OPEN = 16;
/**
 * A gathering left open this long (ms) is dropped when another one opens.
 *
 * @internal test seam
 */
export const MAX_AGE_MS = 60_000;
/**
 * Most characters one gathering keeps (20,000 members' NAMES take a few hundred KB), and all of
 * a connection's open gatherings together; past the second the oldest gives way. With lines of
 * 8 KB the line bounds alone would keep hundreds of MB per connection.
 *
 * @internal test seam
 */
export const MAX_CHARS = 1 << 20;
/** @internal test seam */
export const MAX_OPEN_CHARS = 4 << 20;

/** The end numeric each item numeric belongs to. */
const END_OF = new Map<string, string>();
for (const [end, kind] of Object.entries(GATHERED)) {
  for (const item of kind.items) END_OF.set(item, end);
}

/** What a gathering hands to its end numeric's handler. */
export interface Gathered {
  lines: Message[];
  /** Lines were dropped past the bound. */
  cut: boolean;
}

interface Open extends Gathered {
  since: number;
  chars: number;
}

/** The characters a gathered line keeps: its source, parameters and tags. */
function charsOf(m: Message): number {
  let n = m.prefix.length + m.command.length;
  for (const p of m.params) n += p.length + 1;
  for (const [k, v] of m.tags) n += k.length + v.length + 1;
  return n;
}

/** One connection's open gatherings. */
export class Replies {
  #open = new Map<string, Open>();
  /** Characters kept by the open gatherings together. */
  #chars = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** How many gatherings are open (tests, bounds). */
  get size(): number {
    return this.#open.size;
  }

  #keyOf(end: string, m: Message): string {
    const i = GATHERED[end].key;
    // A NAMES line is `353 me = #chan :names`: the channel is its third parameter.
    const at = end === RPL_ENDOFNAMES && m.command === RPL_NAMREPLY ? 2 : i;
    return `${end} ${at < 0 ? "" : (m.params[at] ?? "").toLowerCase()}`;
  }

  /** True when `m` is a reply's line: kept for its end (a lone RPL_AWAY outside a WHOIS is not). */
  gather(m: Message): boolean {
    const end = END_OF.get(m.command);
    if (end === undefined) return false;
    const key = this.#keyOf(end, m);
    let open = this.#open.get(key);
    if (!open) {
      // An away reply to a message is news of its own; in a WHOIS it is one of its lines.
      if (m.command === RPL_AWAY) return false;
      this.#expire();
      open = { lines: [], cut: false, since: this.now(), chars: 0 };
      this.#open.set(key, open);
    }
    const chars = charsOf(m);
    if (open.lines.length >= GATHERED[end].max || open.chars + chars > MAX_CHARS) {
      open.cut = true;
      return true;
    }
    // Oldest first: a Map iterates in insertion order.
    for (const other of this.#open.keys()) {
      if (this.#chars + chars <= MAX_OPEN_CHARS) break;
      if (other !== key) this.#drop(other);
    }
    if (this.#chars + chars > MAX_OPEN_CHARS) {
      open.cut = true;
      return true;
    }
    open.lines.push(m);
    open.chars += chars;
    this.#chars += chars;
    return true;
  }

  #drop(key: string): void {
    const open = this.#open.get(key);
    if (!open) return;
    this.#open.delete(key);
    this.#chars -= open.chars;
  }

  /** The lines gathered for the reply `m` ends (none when it ended before any came). */
  end(m: Message): Gathered | undefined {
    if (!(m.command in GATHERED)) return undefined;
    const key = this.#keyOf(m.command, m);
    const open = this.#open.get(key);
    this.#drop(key);
    return open ? { lines: open.lines, cut: open.cut } : { lines: [], cut: false };
  }

  #expire(): void {
    const old = this.now() - MAX_AGE_MS;
    for (const [key, open] of this.#open) if (open.since < old) this.#drop(key);
    // Oldest first: a Map iterates in insertion order.
    while (this.#open.size >= MAX_OPEN) this.#drop(this.#open.keys().next().value!);
  }
}
