/**
 * Who each user ignores: masks (`nick!user@host` with wildcards, already casefolded by the
 * caller), kept per user and applied to every connection and device of that user.
 */

/** Most masks one user keeps: each incoming chat line is matched against all of them. */
export const MAX_IGNORES = 200;

/** Storage of ignore masks. */
export interface IgnoreStore {
  /** Changes whenever any user's list changes (caches of the lists reload on it). */
  readonly generation: number;
  /** The user's masks, in the order they were added (same millisecond or not). */
  list(userId: number): Promise<string[]>;
  /**
   * Adds a mask: "added", "exists" when it is on the list already, or "full" when the user has
   * MAX_IGNORES masks.
   */
  add(userId: number, mask: string): Promise<"added" | "exists" | "full">;
  /** Removes a mask; false when it was not on the list. */
  remove(userId: number, mask: string): Promise<boolean>;
}
