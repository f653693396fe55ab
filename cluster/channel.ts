/**
 * Messages between Parley nodes over PostgreSQL's LISTEN/NOTIFY. A NOTIFY payload holds at most
 * 8000 bytes: a larger message goes into `cluster_payloads` and the NOTIFY carries its id.
 */
import { log } from "../lib/log.ts";
import { nowMicros } from "../lib/time.ts";
import { pgString, type Sql } from "../store/pg/db.ts";

/** Largest JSON sent inline (bytes, with room below PostgreSQL's 8000). */
const INLINE = 7000;
/** How long a stored payload is kept for slow readers (µs). */
export const PAYLOAD_KEEP_US = 60 * 1_000_000;

/** A message as it travels: inline, or by reference. */
type Envelope = { m: unknown } | { ref: number };

/** Sends and receives JSON messages on named channels. */
export class PgChannel {
  constructor(readonly sql: Sql) {}

  /** Sends `message` (JSON) on `channel`. */
  async send(channel: string, message: unknown): Promise<void> {
    const json = JSON.stringify({ m: message });
    let payload = json;
    if (new TextEncoder().encode(json).length > INLINE) {
      const [row] = await this.sql`INSERT INTO cluster_payloads (payload, created)
        VALUES (${pgString(json)}, ${nowMicros()}) RETURNING id`;
      payload = JSON.stringify({ ref: row.id });
    }
    await this.sql`SELECT pg_notify(${channel}, ${payload})`;
  }

  /** Calls `fn` with every message on `channel`; resolves once listening. */
  async listen(channel: string, fn: (message: unknown) => void): Promise<() => Promise<void>> {
    const { unlisten } = await this.sql.listen(channel, (payload) => {
      this.#open(payload).then((m) => m !== undefined && fn(m)).catch((err) =>
        log.warn("cluster message dropped", { channel, error: String(err) })
      );
    });
    return unlisten;
  }

  async #open(payload: string): Promise<unknown> {
    const env = JSON.parse(payload) as Envelope;
    if ("m" in env) return env.m;
    const [row] = await this.sql`SELECT payload FROM cluster_payloads WHERE id = ${env.ref}`;
    if (!row) return undefined; // expired: older than PAYLOAD_KEEP_US
    return (JSON.parse(row.payload) as { m: unknown }).m;
  }

  /** Removes stored payloads every reader has had time to read. */
  async prune(): Promise<void> {
    await this.sql`DELETE FROM cluster_payloads WHERE created < ${nowMicros() - PAYLOAD_KEEP_US}`;
  }
}
