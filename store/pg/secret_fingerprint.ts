/**
 * The fingerprint of the secret an installation's nodes share, kept in the database: a node
 * started with another secret would take users the others run (ownership's locks are named after
 * the secret) and read none of their messages, so it is refused at start instead.
 */
import { hmac } from "../../lib/crypto.ts";
import type { Sql } from "./db.ts";

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
  await sql`INSERT INTO installation_secret (fingerprint) VALUES (${mine}) ON CONFLICT DO NOTHING`;
  const [row] = await sql<{ fingerprint: string }[]>`SELECT fingerprint FROM installation_secret`;
  return row?.fingerprint === mine;
}
