/**
 * Errors of the lower layers (irc, store, files, webhook, embed). They say what went wrong and
 * which input it concerns, never an HTTP status: the HTTP edge (`http/errors.ts`) maps each kind.
 */

/** What kind of failure; the edge maps invalid→400, not_found→404, forbidden→403, conflict→409,
 * unavailable→503, too_large→413, upstream→424. */
export type ErrorKind =
  | "invalid"
  | "not_found"
  | "forbidden"
  | "conflict"
  | "unavailable"
  | "too_large"
  | "upstream";

/** A failure the caller can act on, with a JSON pointer to the input concerned ("/" for none). */
export class DomainError extends Error {
  constructor(readonly kind: ErrorKind, message: string, readonly path = "/") {
    super(message);
    this.name = "DomainError";
  }
}

/** Bad input at `path` (a JSON pointer such as `/body/url`). */
export const invalid = (message: string, path = "/") => new DomainError("invalid", message, path);
/** Something unknown, or not the caller's. */
export const missing = (message = "Not found.") => new DomainError("not_found", message);
/** The caller may not do this. */
export const denied = (message: string) => new DomainError("forbidden", message);
/** What was asked depended on another server (an IRC server), and that failed. */
export const upstream = (message: string, path = "/") => new DomainError("upstream", message, path);
