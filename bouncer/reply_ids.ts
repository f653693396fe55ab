/**
 * The ids a reply or reaction names. The IRC server names a line by its own msgid, attached
 * clients by Parley's (lib/msgid.ts, the one history gives): `+draft/reply` is turned from one
 * into the other both ways. The lines relayed lately are remembered; any other (stored before a
 * client attached, or before Parley started) is looked up in the store. A line the store does not
 * have keeps the id it was named by.
 */
import { ircLower } from "../lib/casefold.ts";
import { log } from "../lib/log.ts";
import { msgidOf, parseMsgid } from "../lib/msgid.ts";
import type { Store } from "../store/mod.ts";

/** Lines remembered per connection, the server's id with the own one. */
const MAX_IDS = 4096;
/**
 * How long a live line waits for its reply's lookup at most (the lines after it wait too): a
 * database that is away (PostgreSQL restarting) must not stall the stream; the line then keeps
 * the server's id.
 *
 * @internal test seam
 */
export const LOOKUP = { ms: 2000 };

/** `work`'s answer, or undefined once `ms` passed first. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One connection's ids: remembered, else read from the store (when it keeps history). */
export class ReplyIds {
  /** Server msgid -> own msgid, oldest first; and back. */
  #own = new Map<string, string>();
  #server = new Map<string, string>();

  constructor(readonly store?: Store) {}

  /** A stored line the server named `server` is `own` to clients. */
  remember(server: string, own: string): void {
    // To the end, the newest; a server that gives an id again (a hostile one, every line) keeps
    // one pair for it, so both maps stay within the bound.
    const before = this.#own.get(server);
    if (before !== undefined) {
      this.#own.delete(server);
      this.#server.delete(before);
    }
    this.#own.set(server, own);
    this.#server.set(own, server);
    if (this.#own.size > MAX_IDS) {
      const [oldest, ownOfIt] = this.#own.entries().next().value!;
      this.#own.delete(oldest);
      this.#server.delete(ownOfIt);
    }
  }

  /** The own msgid of a server msgid among the lines remembered. */
  ownNow(server: string): string | undefined {
    return this.#own.get(server);
  }

  /** Whether a lookup in the store could find what memory does not. */
  get canLook(): boolean {
    return !!this.store?.messages.history;
  }

  /**
   * The own msgid of the line the server named `server` in the connection's conversation `name`
   * (a channel, or the other person of a private conversation); undefined when none is stored.
   */
  async own(connection: number, name: string, server: string): Promise<string | undefined> {
    const known = this.#own.get(server);
    const history = this.store?.messages.history;
    if (known || !history) return known;
    const lookup = async () => {
      const conv = await this.store!.conversations.get(connection, ircLower(name));
      if (!conv) return undefined;
      const ts = (await history.byServerMsgid(conv.id, [server])).get(server);
      return ts === undefined ? undefined : msgidOf(conv.id, ts);
    };
    try {
      const own = await within(lookup(), LOOKUP.ms);
      if (own) this.remember(server, own);
      return own;
    } catch (err) {
      log.debug("bouncer: a reply's line not looked up", { error: String(err) });
      return undefined;
    }
  }

  /**
   * The server's msgid of the connection's line a client named `own`; the id itself when it
   * names no stored line the server gave an id (the server's, or one Parley never stored), or the
   * store did not answer in time.
   */
  async server(connection: number, own: string): Promise<string> {
    const known = this.#server.get(own);
    const ref = parseMsgid(own);
    const history = this.store?.messages.history;
    if (known || !ref || !history) return known ?? own;
    try {
      const server = await within(
        history.serverMsgid(connection, ref.conversation, ref.ms),
        LOOKUP.ms,
      );
      if (!server) return own;
      this.remember(server, own);
      return server;
    } catch (err) {
      log.debug("bouncer: a reply's line not looked up", { error: String(err) });
      return own;
    }
  }
}
