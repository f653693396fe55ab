/** The bounds of the listener, in one place; tests shorten the times. */
export interface BouncerLimits {
  /** A client that has not registered by then is dropped (ms). */
  registerTimeoutMs: number;
  /** Lines a client may send at once, then one every `lineIntervalMs`; past it reading waits. */
  lineBurst: number;
  lineIntervalMs: number;
  /** Attached clients per user, over all connections. */
  clientsPerUser: number;
  /** Failed SASL exchanges before the client is dropped. */
  saslAttempts: number;
  /**
   * Clients not yet registered, over all addresses. Past it a newcomer takes the place of the
   * longest-waiting client of the address that has the most waiting (one not logged in yet).
   */
  unregistered: number;
  /** Clients not yet registered from one address (an IPv6 /64); more are refused. */
  unregisteredPerAddress: number;
}

export const DEFAULT_LIMITS: BouncerLimits = {
  registerTimeoutMs: 30_000,
  lineBurst: 20,
  lineIntervalMs: 200,
  clientsPerUser: 20,
  saslAttempts: 3,
  unregistered: 200,
  unregisteredPerAddress: 10,
};
