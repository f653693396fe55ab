/**
 * A channel's detachment for IRC clients: joined and kept, out of their channel lists, with the
 * options that say what they are told of it and what reattaches it. Declared here because the
 * bus carries its changes (DetachEvent, protocol/events.ts).
 */

/** What IRC clients are told of a detached channel's messages (`""`: the default, highlight). */
export type RelayDetached = "message" | "highlight" | "none";
export const RELAY_DETACHED: readonly RelayDetached[] = ["message", "highlight", "none"];

/** What reattaches a detached channel (`""`: the default, highlight). */
export type ReattachOn = "message" | "highlight" | "none";
export const REATTACH_ON: readonly ReattachOn[] = ["message", "highlight", "none"];

/** A channel's detachment and its options, as stored. */
export interface DetachState {
  /** Joined and kept, but out of IRC clients' channel lists. */
  detached: boolean;
  relayDetached: RelayDetached | "";
  reattachOn: ReattachOn | "";
  /** Seconds without a message after which the channel detaches itself (0: never). */
  detachAfter: number;
}
