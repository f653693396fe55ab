/**
 * MONITOR, per client: each attached client keeps a list of its own, as if it were alone on the
 * network, and the server is asked for the union. A client's `MONITOR C` clears its own list, not
 * another's; `L` and `S` are answered from here; a status goes only to the clients that watch that
 * nick; and the union is asked again after every reconnect, since the server forgets it. Only for a
 * server that says MONITOR in its ISUPPORT; any other MONITOR goes to the server as written.
 */
import { ircLower } from "../lib/casefold.ts";
import { nickOf } from "../irc/protocol/message.ts";

/** Nicks one client may watch when the server names no limit (a list is kept per client). */
export const MONITOR_CAP = 1_000;
/** Longest nick kept; a longer target is no nick any server gives. */
const MAX_TARGET = 64;
/** Bytes of targets in one line Parley writes (a line is 512 with its command and nick). */
const TARGETS_PER_LINE = 400;
const encoder = new TextEncoder();

/** What a client's `MONITOR +` did. */
interface Added {
  /** Nicks the server is to be asked for (no client watched them). */
  ask: string[];
  /** Known statuses of nicks someone watched already: sources online, nicks offline. */
  online: string[];
  offline: string[];
  /** Targets past the client's limit, not added (ERR_MONLISTFULL). */
  full: string[];
}

export class MonitorLists<C> {
  /** Each client's list: casefolded nick to the nick as the client wrote it. */
  #lists = new Map<C, Map<string, string>>();
  /** What the server was asked to watch: casefolded nick to the nick as written. */
  #asked = new Map<string, string>();
  /** The server's last word on a nick: its source when online, null when offline. */
  #status = new Map<string, string | null>();

  /** Whether the server watches anything for the clients (its statuses are routed here). */
  get active(): boolean {
    return this.#asked.size > 0;
  }

  /** The targets of a MONITOR parameter: comma-separated nicks, without empties or junk. */
  static targets(param: string | undefined): string[] {
    if (!param) return [];
    return param.split(",").filter((t) => t && t.length <= MAX_TARGET && !/[\s:!@*]/.test(t));
  }

  add(client: C, targets: string[], limit: number): Added {
    const out: Added = { ask: [], online: [], offline: [], full: [] };
    let list = this.#lists.get(client);
    if (!list) this.#lists.set(client, list = new Map());
    const bound = limit > 0 ? limit : MONITOR_CAP;
    for (const t of targets) {
      const k = ircLower(t);
      if (list.has(k)) continue;
      if (list.size >= bound) {
        out.full.push(t);
        continue;
      }
      list.set(k, t);
      if (!this.#asked.has(k)) {
        this.#asked.set(k, t);
        out.ask.push(t);
      } else this.#tell(k, t, out);
    }
    return out;
  }

  /** What the server last said of a nick, into `into`'s online or offline (nothing if unknown). */
  #tell(k: string, nick: string, into: { online: string[]; offline: string[] }): void {
    const s = this.#status.get(k);
    if (s) into.online.push(s);
    else if (s === null) into.offline.push(nick);
  }

  /** Takes nicks off a client's list: those nobody else watches, for the server to forget. */
  remove(client: C, targets: string[]): string[] {
    const list = this.#lists.get(client);
    if (!list) return [];
    const gone: string[] = [];
    for (const t of targets) if (list.delete(ircLower(t))) gone.push(ircLower(t));
    if (!list.size) this.#lists.delete(client);
    return this.#unwatched(gone);
  }

  /** A client's whole list goes (`MONITOR C`, or it left): what the server is to forget. */
  clear(client: C): string[] {
    const list = this.#lists.get(client);
    if (!list) return [];
    this.#lists.delete(client);
    return this.#unwatched([...list.keys()]);
  }

  #unwatched(folded: string[]): string[] {
    const forget: string[] = [];
    for (const k of folded) {
      if (this.#anyWatches(k)) continue;
      const nick = this.#asked.get(k);
      if (nick === undefined) continue;
      this.#asked.delete(k);
      this.#status.delete(k);
      forget.push(nick);
    }
    return forget;
  }

  #anyWatches(k: string): boolean {
    for (const list of this.#lists.values()) if (list.has(k)) return true;
    return false;
  }

  /** Whether a client watches a nick. */
  watches(client: C, nick: string): boolean {
    return this.#lists.get(client)?.has(ircLower(nick)) ?? false;
  }

  /** A client's list, as it wrote the nicks (`MONITOR L`). */
  list(client: C): string[] {
    return [...(this.#lists.get(client)?.values() ?? [])];
  }

  /** The known statuses of a client's nicks (`MONITOR S`); those not known yet come when told. */
  statuses(client: C): { online: string[]; offline: string[] } {
    const out = { online: [] as string[], offline: [] as string[] };
    for (const [k, nick] of this.#lists.get(client) ?? []) this.#tell(k, nick, out);
    return out;
  }

  /**
   * The server's 730 (online, targets as sources) or 731 (offline, nicks): remembered, and each
   * client's share of the targets, for the clients that watch some.
   */
  told(online: boolean, targets: string[]): Map<C, string[]> {
    const known: string[] = [];
    for (const t of targets) {
      const k = ircLower(nickOf(t));
      if (!this.#asked.has(k)) continue;
      this.#status.set(k, online ? t : null);
      known.push(t);
    }
    return this.#shares(known);
  }

  /**
   * The server's 734: these were not added there. Off every list that has them, and told to the
   * clients whose lists they were on.
   */
  refused(targets: string[]): Map<C, string[]> {
    const shares = this.#shares(targets);
    for (const t of targets) {
      const k = ircLower(t);
      this.#asked.delete(k);
      this.#status.delete(k);
      for (const [c, list] of this.#lists) {
        list.delete(k);
        if (!list.size) this.#lists.delete(c);
      }
    }
    return shares;
  }

  #shares(targets: string[]): Map<C, string[]> {
    const out = new Map<C, string[]>();
    if (!targets.length) return out;
    for (const [c, list] of this.#lists) {
      const mine = targets.filter((t) => list.has(ircLower(nickOf(t))));
      if (mine.length) out.set(c, mine);
    }
    return out;
  }

  /** The server registered again: what it said of each nick is forgotten with its list. */
  reconnected(): void {
    this.#status.clear();
  }

  /** Every nick some client watches, to ask a server that registered again. */
  watched(): string[] {
    return [...this.#asked.values()];
  }
}

/** Targets joined by commas, as few lines' worth as fit (each at most 400 bytes). */
export function targetLines(targets: string[]): string[] {
  const out: string[] = [];
  let line = "";
  let bytes = 0;
  for (const t of targets) {
    const size = encoder.encode(t).length;
    if (line && bytes + 1 + size > TARGETS_PER_LINE) {
      out.push(line);
      line = "";
    }
    bytes = line ? bytes + 1 + size : size;
    line = line ? `${line},${t}` : t;
  }
  if (line) out.push(line);
  return out;
}
