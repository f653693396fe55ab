/** Web Push subscriptions (one per browser session) and the per-user choices push acts on. */

/** A browser's push subscription, as the Push API gives it. */
export interface PushSubscriptionRecord {
  endpoint: string;
  userId: number;
  sessionHash: string;
  /** The browser's public key (base64url, P-256). */
  p256dh: string;
  /** The shared authentication secret (base64url, 16 bytes). */
  auth: string;
}

/** Storage of push subscriptions and preferences. */
export interface PushStore {
  /** Adds or replaces a subscription (an endpoint moves to whoever subscribes it last). */
  save(sub: PushSubscriptionRecord): Promise<void>;
  /**
   * Saves like `save` unless the user already has `max` other subscriptions; false then. The
   * count and the write are one step, so concurrent subscribes never store more than `max`.
   */
  saveWithin(sub: PushSubscriptionRecord, max: number): Promise<boolean>;
  forUser(userId: number): Promise<PushSubscriptionRecord[]>;
  countForUser(userId: number): Promise<number>;
  /** Removes an endpoint; with `userId`, only when it is that user's. */
  remove(endpoint: string, userId?: number): Promise<boolean>;
  autoAway(userId: number): Promise<boolean>;
  setAutoAway(userId: number, on: boolean): Promise<void>;
  /** The users who chose automatic away. */
  autoAwayUsers(): Promise<number[]>;
}
