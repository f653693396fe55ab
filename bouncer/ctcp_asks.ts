/**
 * CTCP requests sent to someone, by who sent them (an IRC client, or the web client), so that the
 * answer (a NOTICE `\x01TYPE ...\x01` from the nick asked) goes to its asker alone: a bouncer's
 * other clients did not ask, and show a CTCP answer nobody there wanted. An answer nobody is
 * waiting for goes to everyone, as any notice does; one for a client that has left, to no one.
 */

/** How long an answer is waited for, and how many requests wait at once at most. */
const ASK_MS = 60_000;
const MAX_ASKS = 32;

interface Ask<C> {
  asker: C;
  /** The nick asked, folded by the connection's casemapping. */
  nick: string;
  type: string;
  until: number;
}

/** The requests of one connection's clients that wait for an answer, oldest first. */
export class CtcpAsks<C> {
  #asks: Ask<C>[] = [];

  /** `asker` sent a request of `type` to `nick` (folded). Past MAX_ASKS the oldest is forgotten. */
  add(asker: C, nick: string, type: string, now = Date.now()): void {
    this.#drop(now);
    this.#asks.push({ asker, nick, type: type.toUpperCase(), until: now + ASK_MS });
    if (this.#asks.length > MAX_ASKS) this.#asks.shift();
  }

  /** Who waits for `nick`'s answer of `type` (the oldest such request), now answered. */
  take(nick: string, type: string, now = Date.now()): C | undefined {
    this.#drop(now);
    const at = this.#asks.findIndex((a) => a.nick === nick && a.type === type.toUpperCase());
    return at < 0 ? undefined : this.#asks.splice(at, 1)[0].asker;
  }

  #drop(now: number): void {
    while (this.#asks.length && this.#asks[0].until <= now) this.#asks.shift();
  }
}
