/**
 * The `msgid` of a stored message: derived from what makes its row unique (the connection, the
 * conversation and its stored time in microseconds), so it is the same live and in history, and
 * the API's ids name the same message. Lines Parley does not store get a random one.
 */
import { createHash } from "node:crypto";
import { base64url } from "../lib/crypto.ts";

/** The msgid of a stored message. */
export function storedMsgid(
  connectionId: string,
  conversationId: string,
  tsMicros: number,
): string {
  const digest = createHash("sha256").update(`${connectionId}\0${conversationId}\0${tsMicros}`)
    .digest();
  return base64url(new Uint8Array(digest.subarray(0, 15)));
}

/** The msgid of a line that is not stored (a join, a mode change...). */
export function passingMsgid(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(15)));
}
