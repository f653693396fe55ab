/**
 * The fingerprint of the secret an installation's nodes share, kept in the database: a node
 * started with another secret would take users the others run (ownership's locks are named after
 * the secret) and read none of their messages, so it is refused at start instead.
 */
import { hmac } from "../../lib/crypto.ts";
import type { Sql } from "./db.ts";

/** Its row in `settings`, whose readers keep only the keys they know. */
const KEY = "secret_fingerprint";

/** An HMAC of a constant under the secret: the same for the same secret, and not the secret. */
export function secretFingerprint(secret: string): Promise<string> {
  return hmac(secret, "parley installation secret fingerprint");
}

/**
 * Stores the fingerprint of `secret` when the database has none (the first node's start) and
 * answers whether `secret` is the one stored. Two first starts at once: one of them inserts.
 */
export async function claimSecret(sql: Sql, secret: string): Promise<boolean> {
  const mine = await secretFingerprint(secret);
  await sql`INSERT INTO settings (key, value) VALUES (${KEY}, ${JSON.stringify(mine)})
    ON CONFLICT (key) DO NOTHING`;
  const [row] = await sql<{ value: string }[]>`SELECT value FROM settings WHERE key = ${KEY}`;
  return row?.value === JSON.stringify(mine);
}
