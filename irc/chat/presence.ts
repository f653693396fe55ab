/**
 * Who is in which channel, as far as this connection has seen (NAMES, joins, parts, kicks,
 * quits, nick changes, prefix modes) and who of them is away (AWAY lines under `away-notify`, and
 * a WHO after joining): a quit or a nick change is kept in the history of the channels it
 * concerns, and `/names` is answered from here without asking the server. Bounded: a hostile
 * server cannot make it grow without limit.
 */

/** Most nicks remembered per channel; beyond, the list is incomplete (`/names` asks the server). */
const MAX_PER_CHANNEL = 20_000;
/** Most channels tracked per connection. */
const MAX_CHANNELS = 2_000;
/** Longest wait for a NAMES under way before its channel's list is answered as it is. */
const NAMES_WAIT_MS = 10_000;
/** Largest channel asked WHO after joining, to learn who is away: beyond, it costs the server. */
export const MAX_WHO_MEMBERS = 500;
/** Most people remembered as away per connection. */
const MAX_AWAY = 20_000;

/** One member: the nick as the server spells it and its prefix modes (`o`, `v`), highest first. */
export interface Member {
  nick: string;
  modes: string[];
  /** Known to be away (absent when here or not known). */
  away?: boolean;
}

/**
 * A member as kept: the nick alone (a string) while it has no prefix modes, as nearly every
 * member of a big channel has. A connection keeps every member of its channels, so with hundreds
 * of connections in channels of hundreds an object and an array a member were most of the heap.
 */
type Kept = string | Member;

const asMember = (k: Kept): Member => typeof k === "string" ? { nick: k, modes: [] } : k;

interface Channel {
  /** By casefolded nick. */
  members: Map<string, Kept>;
  /** More members than MAX_PER_CHANNEL: the list is not whole. */
  overflow: boolean;
  /** The user joined and the server's NAMES has not ended yet: wake these when it does. */
  pending?: (() => void)[];
}

/** Channel members by channel id; nicks and channel ids already casefolded by the caller. */
export class Presence {
  #channels = new Map<string, Channel>();
  /** Casefolded nicks known to be away, on this connection (away is per person, not channel). */
  #away = new Set<string>();

  #channel(id: string): Channel | undefined {
    let ch = this.#channels.get(id);
    if (!ch && this.#channels.size < MAX_CHANNELS) {
      this.#channels.set(id, ch = { members: new Map(), overflow: false });
    }
    return ch;
  }

  #add(ch: Channel, id: string, member: Member): void {
    if (ch.members.has(id) || ch.members.size < MAX_PER_CHANNEL) {
      ch.members.set(id, member.modes.length ? member : member.nick);
    } else ch.overflow = true;
  }

  /**
   * The user joined `channel`: its list starts afresh (a rejoin after a reconnect must not keep
   * who was there before) and is complete once the server's NAMES ends.
   */
  joined(channel: string): void {
    const old = this.#channels.get(channel);
    this.#channels.delete(channel);
    const ch = this.#channel(channel);
    if (ch) ch.pending = old?.pending ?? [];
  }

  /**
   * The server's NAMES of `channel` ended: the whole list, replacing what was known. True when it
   * ends the user's join and the channel is small enough to ask WHO once, to learn who is away.
   */
  names(channel: string, list: { id: string; nick: string; modes: string[] }[]): boolean {
    const ch = this.#channel(channel);
    if (!ch) return false;
    const afterJoin = ch.pending !== undefined;
    ch.members = new Map();
    ch.overflow = false;
    for (const m of list) this.#add(ch, m.id, { nick: m.nick, modes: m.modes });
    const waiting = ch.pending ?? [];
    ch.pending = undefined;
    for (const wake of waiting) wake();
    return afterJoin && list.length <= MAX_WHO_MEMBERS;
  }

  /** Whether `id` (a casefolded nick) is away, as far as this connection knows. */
  isAway(id: string): boolean {
    return this.#away.has(id);
  }

  /** Records that `id` is away or back; true when that changed what was known. */
  setAway(id: string, away: boolean): boolean {
    if (away === this.#away.has(id)) return false;
    if (!away) this.#away.delete(id);
    else if (this.#away.size < MAX_AWAY) this.#away.add(id);
    else return false;
    return true;
  }

  /** Adds `nick` (casefolded `id`) to `channel`. */
  join(channel: string, id: string, nick = id): void {
    const ch = this.#channel(channel);
    if (ch) this.#add(ch, id, { nick, modes: [] });
  }

  /** Removes `nick` from `channel`; the user leaving forgets the channel. */
  part(channel: string, nick: string, isMe: boolean): void {
    if (isMe) {
      const ch = this.#channels.get(channel);
      this.#channels.delete(channel);
      for (const wake of ch?.pending ?? []) wake();
    } else this.#channels.get(channel)?.members.delete(nick);
  }

  /** Removes `nick` everywhere; returns the channels it was in. */
  quit(nick: string): string[] {
    this.#away.delete(nick);
    const out: string[] = [];
    for (const [channel, ch] of this.#channels) if (ch.members.delete(nick)) out.push(channel);
    return out;
  }

  /** Renames `from` to `to` (spelt `nick`) everywhere; returns the channels concerned. */
  rename(from: string, to: string, nick = to): string[] {
    if (this.#away.delete(from)) this.#away.add(to);
    const out: string[] = [];
    for (const [channel, ch] of this.#channels) {
      const m = ch.members.get(from);
      if (m) {
        ch.members.delete(from);
        ch.members.set(to, typeof m === "string" ? nick : { ...m, nick });
        out.push(channel);
      }
    }
    return out;
  }

  /**
   * A prefix mode (`o`, `v`...) given or taken; `rank` lists the server's prefix modes, highest
   * first, to keep a member's modes in that order.
   */
  mode(channel: string, nick: string, mode: string, on: boolean, rank: string[]): void {
    const members = this.#channels.get(channel)?.members;
    const kept = members?.get(nick);
    if (!members || kept === undefined) return;
    const m = asMember(kept);
    const modes = m.modes.filter((x) => x !== mode);
    if (on) modes.push(mode);
    const at = (x: string) => (rank.indexOf(x) + rank.length + 1) % (rank.length + 1);
    members.set(
      nick,
      modes.length ? { nick: m.nick, modes: modes.sort((a, b) => at(a) - at(b)) } : m.nick,
    );
  }

  /**
   * The members of `channel` once a NAMES under way has ended (or after a bounded wait);
   * undefined when this connection does not know the whole list (not joined, or too many).
   */
  async members(channel: string, waitMs = NAMES_WAIT_MS): Promise<Member[] | undefined> {
    let ch = this.#channels.get(channel);
    if (ch?.pending && ch.pending.length < 100) {
      const pending = ch.pending;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        pending.push(resolve);
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      ch = this.#channels.get(channel);
    }
    // Still waiting (the join failed or the server is slow): the server may know better.
    if (!ch || ch.overflow || ch.pending) return undefined;
    return [...ch.members.entries()].map(([id, k]) => {
      const m = asMember(k);
      return {
        nick: m.nick,
        modes: [...m.modes],
        ...(this.#away.has(id) ? { away: true } : {}),
      };
    });
  }
}
