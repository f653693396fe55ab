/**
 * Who is in which channel, as far as a connection has seen (NAMES, joins, parts, kicks, quits,
 * nick changes, prefix modes) and who of them is away (AWAY lines under `away-notify`, and a WHO
 * after joining): a quit or a nick change is kept in the history of the channels it concerns, and
 * `/names` is answered from here without asking the server. Bounded: a hostile server cannot make
 * it grow without limit.
 *
 * The connections of this daemon to one IRC network share one list per channel: with hundreds of
 * users in the same channels, a list each was most of the daemon's memory. A shared member carries
 * a bit per connection (its slot in that channel) saying that this connection has seen it there,
 * so each connection still answers with exactly what its own server lines told it (a member shown
 * only to channel operators, say, is not shown to the others) and a quit is kept in the channels
 * where that connection saw the person, whichever connection read its QUIT first. What is the same
 * for everyone on a network is shared as such: a member's spelling and prefix modes, who is away,
 * and the one WHO that tells who is away (asked by the first connection to join a channel, not by
 * every one).
 */

/** Most nicks remembered per channel; beyond, the list is incomplete (`/names` asks the server). */
const MAX_PER_CHANNEL = 20_000;
/** Most channels tracked per connection. */
const MAX_CHANNELS = 2_000;
/** Longest wait for a NAMES under way before its channel's list is answered as it is. */
const NAMES_WAIT_MS = 10_000;
/** Largest channel asked WHO after joining, to learn who is away: beyond, it costs the server. */
export const MAX_WHO_MEMBERS = 500;
/** Most people remembered as away per network. */
const MAX_AWAY = 20_000;
/** Slots per number in a member's bit set: small integers stay unboxed. */
const BITS = 30;

/** One member: the nick as the server spells it and its prefix modes (`o`, `v`), highest first. */
interface Member {
  nick: string;
  modes: string[];
  /** Known to be away (absent when here or not known). */
  away?: boolean;
}

/** A member of a shared channel. */
interface Shared {
  nick: string;
  /** Absent while it has none, as nearly every member of a big channel. */
  modes?: string[];
  /** Bit `slot` set: the connection in that slot of the channel has seen this member there. */
  seen: number[];
}

const has = (seen: number[], slot: number) =>
  ((seen[(slot / BITS) | 0] ?? 0) >> (slot % BITS) & 1) === 1;

function mark(seen: number[], slot: number): void {
  const word = (slot / BITS) | 0;
  while (seen.length <= word) seen.push(0);
  seen[word] |= 1 << (slot % BITS);
}

/** Clears `slot`; true when nobody has seen the member any more. */
function unmark(seen: number[], slot: number): boolean {
  const word = (slot / BITS) | 0;
  if (word < seen.length) seen[word] &= ~(1 << (slot % BITS));
  return seen.every((w) => w === 0);
}

/** One channel of a network, shared by the connections in it. */
interface Channel {
  /** By casefolded nick. */
  members: Map<string, Shared>;
  /** The connections in it, by slot (a freed slot is reused). */
  viewers: (Presence | undefined)[];
  /** A WHO was asked after someone's join: one is enough for everyone. */
  whoAsked: boolean;
}

/** What one connection knows of one channel. */
interface View {
  channel: Channel;
  slot: number;
  /** More members than MAX_PER_CHANNEL: this connection's list is not whole. */
  overflow: boolean;
  /** The user joined and the server's NAMES has not ended yet: wake these when it does. */
  pending?: (() => void)[];
}

/** The channels and the away people of one network, shared by this daemon's connections to it. */
class Network {
  channels = new Map<string, Channel>();
  /** Casefolded nicks known to be away (away is per person, not channel). */
  away = new Set<string>();
  viewers = 0;
}

/** Networks by key, while a connection uses them. */
const networks = new Map<string, Network>();

/** What a connection is told of others' findings: someone in its channels is away or back. */
type AwayListener = (nick: string, away: boolean, message?: string) => void;

/** Channel members by channel id, as one connection sees them; ids casefolded by the caller. */
export class Presence {
  #views = new Map<string, View>();
  #network?: Network;
  #key?: string;
  /** Released: a late event of a dropped client must not take a slot again. */
  #closed = false;
  /**
   * @param key names the network once the connection is registered (server and port, and the
   *   name the server gives its network); undefined keeps a list of its own.
   * @param onAway told when another connection learns that someone this one sees is away or back.
   */
  constructor(private readonly keyOf?: () => string | undefined, private onAway?: AwayListener) {}

  get #net(): Network {
    if (this.#network) return this.#network;
    if (this.#closed) return new Network();
    const key = this.keyOf?.();
    let net = key === undefined ? undefined : networks.get(key);
    if (!net) {
      net = new Network();
      if (key !== undefined) networks.set(key, net);
    }
    net.viewers++;
    this.#key = key;
    return this.#network = net;
  }

  #view(id: string): View | undefined {
    const known = this.#views.get(id);
    if (known || this.#closed || this.#views.size >= MAX_CHANNELS) return known;
    const net = this.#net;
    let channel = net.channels.get(id);
    if (!channel) {
      net.channels.set(id, channel = { members: new Map(), viewers: [], whoAsked: false });
    }
    let slot = channel.viewers.indexOf(undefined);
    if (slot < 0) slot = channel.viewers.push(this) - 1;
    else channel.viewers[slot] = this;
    const view = { channel, slot, overflow: false };
    this.#views.set(id, view);
    return view;
  }

  /** Forgets what this connection saw of channel `id`; the channel goes with its last viewer. */
  #drop(id: string, view: View): void {
    const { channel, slot } = view;
    for (const [nick, m] of channel.members) {
      if (has(m.seen, slot) && unmark(m.seen, slot)) channel.members.delete(nick);
    }
    channel.viewers[slot] = undefined;
    while (channel.viewers.length && !channel.viewers.at(-1)) channel.viewers.pop();
    if (!channel.viewers.length && this.#network?.channels.get(id) === channel) {
      this.#network.channels.delete(id);
    }
    this.#views.delete(id);
  }

  #add(view: View, id: string, nick: string, modes?: string[]): void {
    const { members } = view.channel;
    let m = members.get(id);
    if (!m) {
      if (members.size >= MAX_PER_CHANNEL) {
        view.overflow = true;
        return;
      }
      members.set(id, m = { nick, seen: [] });
    }
    m.nick = nick;
    // A join starts without modes (a NAMES says which it has).
    m.modes = modes?.length ? modes : undefined;
    mark(m.seen, view.slot);
  }

  /**
   * The user joined `channel`: its list starts afresh (a rejoin after a reconnect must not keep
   * who was there before) and is complete once the server's NAMES ends.
   */
  joined(channel: string): void {
    const old = this.#views.get(channel);
    if (old) this.#drop(channel, old);
    const view = this.#view(channel);
    if (view) view.pending = old?.pending ?? [];
  }

  /**
   * The server's NAMES of `channel` ended: the whole list, replacing what this connection knew.
   * True when it ends the user's join, the channel is small enough to ask WHO once, to learn who
   * is away, and no other connection to the network has asked already.
   */
  names(channel: string, list: { id: string; nick: string; modes: string[] }[]): boolean {
    const view = this.#view(channel);
    if (!view) return false;
    const afterJoin = view.pending !== undefined;
    const { members } = view.channel;
    for (const [nick, m] of members) {
      if (has(m.seen, view.slot) && unmark(m.seen, view.slot)) members.delete(nick);
    }
    view.overflow = false;
    for (const m of list) this.#add(view, m.id, m.nick, m.modes);
    const waiting = view.pending ?? [];
    view.pending = undefined;
    for (const wake of waiting) wake();
    if (!afterJoin || list.length > MAX_WHO_MEMBERS || view.channel.whoAsked) return false;
    return view.channel.whoAsked = true;
  }

  /** Whether `id` (a casefolded nick) is away, as far as this network's connections know. */
  isAway(id: string): boolean {
    return this.#net.away.has(id);
  }

  /**
   * Records that `id` is away or back; true when that changed what was known. The other
   * connections that see `id` in a channel are told (they may read the same line later, and
   * then it changes nothing).
   */
  setAway(id: string, away: boolean, message?: string): boolean {
    const net = this.#net;
    if (away === net.away.has(id)) return false;
    if (!away) net.away.delete(id);
    else if (net.away.size < MAX_AWAY) net.away.add(id);
    else return false;
    const told = new Set<Presence>([this]);
    for (const channel of net.channels.values()) {
      const m = channel.members.get(id);
      if (!m) continue;
      channel.viewers.forEach((viewer, slot) => {
        if (!viewer || told.has(viewer) || !has(m.seen, slot)) return;
        told.add(viewer);
        viewer.onAway?.(m.nick, away, message);
      });
    }
    return true;
  }

  /**
   * Whether the user (casefolded nick `me`) is in `channel` as far as this connection has seen:
   * joined, the NAMES of the join ended, and among the members (unless there are too many kept).
   */
  isIn(channel: string, me: string): boolean {
    const view = this.#views.get(channel);
    if (!view || view.pending) return false;
    const m = view.channel.members.get(me);
    return view.overflow || (m !== undefined && has(m.seen, view.slot));
  }

  /**
   * Whether someone (casefolded nick `id`) is in a channel of the user's, as far as this
   * connection has seen; a channel with more members than are kept may hold anyone.
   */
  sees(id: string): boolean {
    for (const { channel, slot, overflow } of this.#views.values()) {
      if (overflow) return true;
      const m = channel.members.get(id);
      if (m && has(m.seen, slot)) return true;
    }
    return false;
  }

  /** Adds `nick` (casefolded `id`) to `channel`. */
  join(channel: string, id: string, nick = id): void {
    const view = this.#view(channel);
    if (view) this.#add(view, id, nick);
  }

  /** Removes `nick` from `channel`; the user leaving forgets the channel. */
  part(channel: string, nick: string, isMe: boolean): void {
    const view = this.#views.get(channel);
    if (!view) return;
    if (isMe) {
      this.#drop(channel, view);
      for (const wake of view.pending ?? []) wake();
      return;
    }
    const m = view.channel.members.get(nick);
    if (m && has(m.seen, view.slot) && unmark(m.seen, view.slot)) {
      view.channel.members.delete(nick);
    }
  }

  /** Removes `nick` from every channel of this connection; returns those it was in. */
  quit(nick: string): string[] {
    this.#network?.away.delete(nick);
    const out: string[] = [];
    for (const [id, { channel, slot }] of this.#views) {
      const m = channel.members.get(nick);
      if (!m || !has(m.seen, slot)) continue;
      if (unmark(m.seen, slot)) channel.members.delete(nick);
      out.push(id);
    }
    return out;
  }

  /** Renames `from` to `to` (spelt `nick`) everywhere; returns the channels concerned. */
  rename(from: string, to: string, nick = to): string[] {
    const away = this.#network?.away;
    if (away?.delete(from)) away.add(to);
    const out: string[] = [];
    for (const [id, view] of this.#views) {
      const { members } = view.channel;
      const m = members.get(from);
      if (!m || !has(m.seen, view.slot)) continue;
      if (unmark(m.seen, view.slot)) members.delete(from);
      let next = members.get(to);
      if (!next && members.size < MAX_PER_CHANNEL) {
        members.set(to, next = { nick, modes: m.modes, seen: [] });
      }
      if (next) {
        next.nick = nick;
        mark(next.seen, view.slot);
      } else view.overflow = true;
      out.push(id);
    }
    return out;
  }

  /**
   * A prefix mode (`o`, `v`...) given or taken; `rank` lists the server's prefix modes, highest
   * first, to keep a member's modes in that order.
   */
  mode(channel: string, nick: string, mode: string, on: boolean, rank: string[]): void {
    const view = this.#views.get(channel);
    const m = view?.channel.members.get(nick);
    if (!view || !m || !has(m.seen, view.slot)) return;
    const modes = (m.modes ?? []).filter((x) => x !== mode);
    if (on) modes.push(mode);
    const at = (x: string) => (rank.indexOf(x) + rank.length + 1) % (rank.length + 1);
    m.modes = modes.length ? modes.sort((a, b) => at(a) - at(b)) : undefined;
  }

  /**
   * The members of `channel` once a NAMES under way has ended (or after a bounded wait);
   * undefined when this connection does not know the whole list (not joined, or too many).
   */
  async members(channel: string, waitMs = NAMES_WAIT_MS): Promise<Member[] | undefined> {
    let view = this.#views.get(channel);
    if (view?.pending && view.pending.length < 100) {
      const pending = view.pending;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        pending.push(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      view = this.#views.get(channel);
    }
    // Still waiting (the join failed or the server is slow): the server may know better.
    if (!view || view.overflow || view.pending) return undefined;
    const away = this.#network?.away;
    const out: Member[] = [];
    for (const [id, m] of view.channel.members) {
      if (!has(m.seen, view.slot)) continue;
      out.push({
        nick: m.nick,
        modes: [...(m.modes ?? [])],
        ...(away?.has(id) ? { away: true } : {}),
      });
    }
    return out;
  }

  /** The connection's client is gone: what it saw is forgotten, its slots freed. */
  release(): void {
    this.#closed = true;
    for (const [id, view] of [...this.#views]) {
      this.#drop(id, view);
      for (const wake of view.pending ?? []) wake();
    }
    const net = this.#network;
    if (!net) return;
    this.#network = undefined;
    if (--net.viewers === 0 && this.#key !== undefined && networks.get(this.#key) === net) {
      networks.delete(this.#key);
    }
  }
}

/**
 * How many networks are shared now (for tests: a released connection lets go of its own).
 *
 * @internal test seam
 */
export function sharedNetworks(): number {
  return networks.size;
}
