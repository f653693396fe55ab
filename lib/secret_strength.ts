/**
 * Whether the server secret is strong enough. Nodes sign and encrypt what they send each other
 * under keys derived from it, so anyone who captures one envelope can test guesses offline, as
 * fast as they can compute HMACs: the secret must be long and random, not a word or a pattern.
 */

/** Bytes a secret should have at least (what `openssl rand -base64 32` makes random). */
const SECRET_MIN_BYTES = 32;
/** Distinct characters a secret should have at least (a random base64 or hex one has more). */
const SECRET_MIN_DISTINCT = 10;
/** Estimated bits it should hold at least: its characters' Shannon entropy times its length. */
const SECRET_MIN_BITS = 128;

/** Why `secret` is weak, or undefined when it looks random enough. Never names the secret. */
export function secretWeakness(secret: string): string | undefined {
  const bytes = new TextEncoder().encode(secret).length;
  if (bytes < SECRET_MIN_BYTES) return `it is ${bytes} bytes long, less than ${SECRET_MIN_BYTES}`;
  const counts = new Map<string, number>();
  for (const ch of secret) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  if (counts.size < SECRET_MIN_DISTINCT) {
    return `it has only ${counts.size} different characters`;
  }
  const length = [...secret].length;
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / length) * Math.log2(n / length);
  if (perChar * length < SECRET_MIN_BITS) return "its characters repeat too much to be random";
  return undefined;
}
