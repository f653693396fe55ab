/**
 * Web Push subscriptions (one per browser session, or one per IRC client that registered through
 * soju.im/webpush) and the per-user choices push acts on.
 */

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

/** An IRC client's push subscription (`WEBPUSH REGISTER`). */
export interface IrcPushSubscriptionRecord {
  endpoint: string;
  userId: number;
  /** The connection's row id it was registered on; null for a client bound to none. */
  connection: number | null;
  /** The client name it logged in with (`EMAIL/NETWORK@CLIENT`), "" when none. */
  client: string;
  /** What the client logged in with (JSON, bouncer/credentials.ts): it must still hold. */
  credential: string;
  p256dh: string;
  auth: string;
}

/** Storage of push subscriptions and preferences. */
export interface PushStore {
  /** Adds or replaces a subscription (an endpoint moves to whoever subscribes it last). */
  save(sub: PushSubscriptionRecord): Promise<void>;
  /**
   * Saves like `save` unless the user already has `max` other subscriptions (browsers' and IRC
   * clients' together); false then. The count and the write are one step, so concurrent
   * subscribes never store more than `max`.
   */
  saveWithin(sub: PushSubscriptionRecord, max: number): Promise<boolean>;
  /** `saveWithin` for an IRC client's subscription (the same shared `max`). */
  saveIrcWithin(sub: IrcPushSubscriptionRecord, max: number): Promise<boolean>;
  ircForUser(userId: number): Promise<IrcPushSubscriptionRecord[]>;
  /** Removes an IRC client's endpoint; with `userId`, only when it is that user's. */
  removeIrc(endpoint: string, userId?: number): Promise<boolean>;
  forUser(userId: number): Promise<PushSubscriptionRecord[]>;
  countForUser(userId: number): Promise<number>;
  /** Removes an endpoint; with `userId`, only when it is that user's. */
  remove(endpoint: string, userId?: number): Promise<boolean>;
  autoAway(userId: number): Promise<boolean>;
  setAutoAway(userId: number, on: boolean): Promise<void>;
  /** The users who chose automatic away. */
  autoAwayUsers(): Promise<number[]>;
}
