/**
 * Bounds and choices both sides check: the API's validation and the store keep them, and the web
 * client offers only what they allow.
 */

/** How much of a conversation notifies the user, as stored and as the API names it. */
export const NOTIFY_LEVELS = ["all", "mentions", "muted"] as const;
export type NotifyLevel = (typeof NOTIFY_LEVELS)[number];

/** Longest draft kept, in characters: a half-typed line, not a paste store. */
export const MAX_DRAFT = 4000;

/** Longest IRC mask kept (an ignore): a nick, an ident and a host name with room to spare. */
export const MAX_MASK_LENGTH = 200;

/**
 * A connection profile's WEBIRC password, as one IRC line can carry it: one word of printable
 * ASCII, not starting with ":".
 */
export const WEBIRC_PASSWORD = /^(?!:)[!-~]+$/;
