/**
 * Messages between Parley nodes over PostgreSQL's LISTEN/NOTIFY, each sealed in an envelope
 * (envelope.ts): a JWE encrypted with keys from the secret the nodes share. A NOTIFY payload
 * holds at most 8000 bytes: a larger message's envelope goes into `cluster_payloads` and the
 * NOTIFY carries a sealed reference to its row.
 */
import { log } from "../lib/log.ts";
import { nowMicros } from "../lib/time.ts";
import type { Sql } from "../store/pg/db.ts";
import { ClusterKeys, type Refusal, ReplayGuard } from "./envelope.ts";

/** Largest envelope sent inline (bytes, with room below PostgreSQL's 8000). */
const INLINE = 7900;
/** How long a stored payload is kept for slow readers (µs). */
const PAYLOAD_KEEP_US = 60 * 1_000_000;
/** How often refused envelopes are logged at most (ms): a flood of forgeries is one line. */
const REFUSAL_LOG_MS = 60_000;

/** Sends and receives JSON messages on named channels. */
export class PgChannel {
  readonly sql: Sql;
  #keys: Promise<ClusterKeys>;
  #turn = Promise.resolve();
  #refused = 0;
  #refusalLogged = 0;

  /** `secret` is the one every node of the installation is configured with. */
  constructor(sql: Sql, secret: string) {
    this.sql = sql;
    this.#keys = ClusterKeys.derive(secret);
  }

  /** Sends `message` (JSON) on `channel`. */
  async send(channel: string, message: unknown): Promise<void> {
    const keys = await this.#keys;
    const sealed = await keys.seal(channel, JSON.stringify(message));
    let payload = sealed.inline;
    if (payload.length > INLINE) {
      const [row] = await this.sql`INSERT INTO cluster_payloads (payload, created)
        VALUES (${sealed.inline}, ${nowMicros()}) RETURNING id`;
      payload = await keys.reference(channel, sealed.jti, Number(row.id));
    }
    await this.sql`SELECT pg_notify(${channel}, ${payload})`;
  }

  /**
   * Calls `fn` with every authentic message on `channel`; resolves once listening. Messages of
   * all this channel's listens are handled one at a time, in the order PostgreSQL delivered them
   * (the order their senders committed). `onListen` is called each time the listen is made: at
   * first, and again after the listening session was lost (a restart of PostgreSQL), when what was
   * sent meanwhile reached nobody.
   */
  async listen(
    channel: string,
    fn: (message: unknown) => void,
    onListen?: () => void,
  ): Promise<() => Promise<void>> {
    const guard = new ReplayGuard();
    const { unlisten } = await this.sql.listen(channel, (payload) => {
      this.#turn = this.#turn.then(() => this.#open(channel, payload, guard)).then((m) => {
        if (m !== undefined) fn(m);
      }).catch((err) => log.warn("cluster message dropped", { channel, error: String(err) }));
    }, onListen);
    return unlisten;
  }

  async #open(channel: string, payload: string, guard: ReplayGuard): Promise<unknown> {
    const keys = await this.#keys;
    const checked = await keys.check(channel, payload);
    if ("refused" in checked) return this.#refuse(channel, checked.refused);
    if (!guard.fresh(checked.nonce, checked.ms)) return this.#refuse(channel, "replayed");
    let json: string;
    if ("json" in checked.ok) json = checked.ok.json;
    else {
      const [row] = await this.sql`SELECT payload FROM cluster_payloads
        WHERE id = ${checked.ok.ref}`;
      if (!row) return undefined; // expired: older than PAYLOAD_KEEP_US
      try {
        json = await keys.open(channel, row.payload, checked.ok.jti);
      } catch {
        return this.#refuse(channel, "undecryptable");
      }
    }
    return JSON.parse(json);
  }

  #refuse(channel: string, why: Refusal): undefined {
    this.#refused++;
    const now = Date.now();
    if (now - this.#refusalLogged >= REFUSAL_LOG_MS) {
      // Nodes configured with different secrets refuse each other's every message: say so.
      log.warn("cluster: refused messages not sealed by this installation's nodes", {
        channel,
        why,
        refused: this.#refused,
        hint: "every node needs the same PARLEY_SECRET",
      });
      this.#refusalLogged = now;
      this.#refused = 0;
    }
    return undefined;
  }

  /** Removes stored payloads every reader has had time to read. */
  async prune(): Promise<void> {
    await this.sql`DELETE FROM cluster_payloads WHERE created < ${nowMicros() - PAYLOAD_KEEP_US}`;
  }
}
