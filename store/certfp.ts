/**
 * Client certificates a user logs in to the listener with (SASL EXTERNAL): each is known by its
 * fingerprint, the SHA-256 of the certificate's DER in lower-case hex (as soju and ZNC take it).
 * A fingerprint belongs to one user at most: it names who logs in.
 */

/** A registered certificate. */
export interface CertfpRecord {
  userId: number;
  /** 64 lower-case hex digits. */
  fingerprint: string;
  /** Milliseconds since the epoch. */
  created: number;
}

/** Most certificates one user registers: one per device, with room to spare. */
export const MAX_CERTFPS = 50;

/** Storage of registered certificate fingerprints. */
export interface CertfpStore {
  /**
   * Registers a fingerprint for the user: "added", "exists" when it is registered already (to
   * anyone), "full" when the user has MAX_CERTFPS.
   */
  add(userId: number, fingerprint: string): Promise<"added" | "exists" | "full">;
  /** The user's fingerprints, oldest first. */
  list(userId: number): Promise<CertfpRecord[]>;
  /** Removes one of the user's; false when the user has no such fingerprint. */
  remove(userId: number, fingerprint: string): Promise<boolean>;
  /** Who registered the fingerprint, if anyone. */
  owner(fingerprint: string): Promise<number | undefined>;
}
