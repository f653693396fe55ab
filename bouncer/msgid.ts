/**
 * The `msgid` of a line Parley passes on without storing it (a join, a mode change...): random.
 * A stored line's msgid is its row's (lib/msgid.ts), carried by the bus's `message` event.
 */
import { base64url } from "../lib/crypto.ts";

/** The msgid of a line that is not stored. */
export function passingMsgid(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(15)));
}
