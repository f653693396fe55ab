/**
 * Who is in which channel, as far as this connection has seen (NAMES, joins, parts, kicks,
 * quits, nick changes), so that a quit or a nick change can be kept in the history of the
 * channels it concerns. Bounded: a hostile server cannot make it grow without limit.
 */

/** Most nicks remembered per channel; beyond, a channel's quits and nick changes go unrecorded. */
const MAX_PER_CHANNEL = 20_000;
/** Most channels tracked per connection. */
const MAX_CHANNELS = 2_000;

/** Channel members by channel id; nicks and channel ids already casefolded by the caller. */
export class Presence {
  #members = new Map<string, Set<string>>();

  /** Adds `nick` to `channel`. */
  join(channel: string, nick: string): void {
    let set = this.#members.get(channel);
    if (!set) {
      if (this.#members.size >= MAX_CHANNELS) return;
      this.#members.set(channel, set = new Set());
    }
    if (set.size < MAX_PER_CHANNEL) set.add(nick);
  }

  /** Removes `nick` from `channel`; the user leaving forgets the channel. */
  part(channel: string, nick: string, isMe: boolean): void {
    if (isMe) this.#members.delete(channel);
    else this.#members.get(channel)?.delete(nick);
  }

  /** Removes `nick` everywhere; returns the channels it was in. */
  quit(nick: string): string[] {
    const out: string[] = [];
    for (const [channel, set] of this.#members) if (set.delete(nick)) out.push(channel);
    return out;
  }

  /** Renames `from` to `to` everywhere; returns the channels concerned. */
  rename(from: string, to: string): string[] {
    const out: string[] = [];
    for (const [channel, set] of this.#members) {
      if (set.delete(from)) {
        set.add(to);
        out.push(channel);
      }
    }
    return out;
  }
}
