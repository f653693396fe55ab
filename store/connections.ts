/** IRC connections: one row per connection of a user, with its URL and wanted state. */

import type { WantedState } from "../protocol/resources.ts";

/** A connection as stored. */
export interface ConnectionRecord {
  /** Row id (`connections.id`). */
  id: number;
  userId: number;
  /** The API's connection_id (`irc-libera`), unique per user. */
  connectionId: string;
  name: string;
  /** The full URL, password included: never returned as is. */
  url: string;
  onConnectCommands: string[];
  wantedState: WantedState;
  /** The nick last used (kept across restarts); empty until the first registration. */
  nick: string;
  /** The fingerprint of its TLS client certificate (SHA-512, hex); empty until one is made. */
  certFingerprint: string;
  created: number;
}

/** A connection's TLS client certificate and its private key (PEM): the key never leaves Parley. */
export interface ClientCertificate {
  cert: string;
  key: string;
  fingerprint: string;
}

/** Fields of a new connection. */
interface NewConnection {
  userId: number;
  connectionId: string;
  name: string;
  url: string;
  onConnectCommands: string[];
  wantedState: WantedState;
  /** The nick to use when the URL names none (kept beside the URL, which stays as given). */
  nick?: string;
  /**
   * What makes two connections of one user the same (host, port, casefolded nick), as the
   * caller spells it; '' (the default) is filled in later.
   */
  target?: string;
}

/** Changes to a connection; absent fields stay as they are. */
interface ConnectionPatch {
  url?: string;
  name?: string;
  onConnectCommands?: string[];
  wantedState?: WantedState;
  nick?: string;
  /** Given with a new URL or nick: the target they make. */
  target?: string;
}

/** Storage of IRC connections. */
export interface ConnectionStore {
  create(c: NewConnection): Promise<ConnectionRecord>;
  /** A user's connections, ordered by connection_id. */
  list(userId: number): Promise<ConnectionRecord[]>;
  get(userId: number, connectionId: string): Promise<ConnectionRecord | undefined>;
  /** How many connections the user has (counted in the database, not read). */
  count(userId: number): Promise<number>;
  /** The user's connections (at most two) whose target is `target`, by an index. */
  byTarget(userId: number, target: string): Promise<ConnectionRecord[]>;
  /** The user's connections whose target is not known yet ('', stored before it was kept). */
  untargeted(userId: number): Promise<ConnectionRecord[]>;
  /**
   * The highest n among the user's connection ids `<base>-<n>` (n a number), 0 when there is
   * none: a new id for one more connection to the same host is one past it.
   */
  highestNumber(userId: number, base: string): Promise<number>;
  byId(id: number): Promise<ConnectionRecord | undefined>;
  /**
   * Every connection whose wanted state is `connected` (reconnected at start), but for those of
   * suspended users.
   */
  wanted(): Promise<ConnectionRecord[]>;
  update(id: number, patch: ConnectionPatch): Promise<ConnectionRecord | undefined>;
  /** Deletes the connection; its conversations and messages go with it (foreign keys). */
  remove(id: number): Promise<boolean>;
  /** The connection's client certificate with its key, if one was made. */
  certificate(id: number): Promise<ClientCertificate | undefined>;
  /** Keeps a client certificate for the connection (unless it has one already); returns the kept one. */
  setCertificate(id: number, c: ClientCertificate): Promise<ClientCertificate | undefined>;
  /** Replaces the connection's client certificate (BouncerServ `certfp generate`). */
  replaceCertificate(id: number, c: ClientCertificate): Promise<void>;
}
