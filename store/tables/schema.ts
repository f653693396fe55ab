/**
 * The simple tables as both backends' migrations define them (store/sqlite/migrations,
 * store/pg/migrations): the same names and columns, so one typed query serves both. Where the
 * two differ it is said once here: a flag is an INTEGER 0/1 in SQLite and a boolean in
 * PostgreSQL (written as a boolean, read back as either: `flag` reads it); times are INTEGER and
 * bigint, numbers in both (store/pg/db.ts parses int8). Files' contents are kept differently by
 * each backend: `files.blob` and the tables after it are PostgreSQL's alone.
 */
import type { ColumnType, Generated } from "kysely";

/** A flag: written as a boolean (SQLite's executor stores 1 or 0), read with `flag`. */
type Flag = ColumnType<boolean | number, boolean | undefined, boolean>;

/** A flag as read from either backend. */
export function flag(value: boolean | number): boolean {
  return value === true || value === 1;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** JSON array of strings. */
  roles: string;
  /** JSON array of strings. */
  highlight_keywords: Generated<string>;
  /** µs. */
  registered: number;
  /** JSON object text. */
  client_settings: Generated<string>;
  /** 1 while the default connection is owed (an account made from the shell, before its login). */
  default_connection_due: Generated<number>;
  /** When the account was suspended (ms); 0 while it is not. */
  suspended: Generated<number>;
}

interface SessionsTable {
  id_hash: string;
  user_id: number;
  /** Times in ms. */
  created: number;
  expires: number;
  public_id: string;
  last_used: number;
  user_agent: Generated<string>;
  address: Generated<string>;
  password_at: number;
}

interface SettingsTable {
  key: string;
  /** JSON text. */
  value: string;
}

export interface ConnectionProfilesTable {
  id: string;
  url: string;
  is_default: Flag;
  is_forced: Flag;
  max_bulk_message_size: number;
  max_message_length: number;
  /** JSON array of strings. */
  service_accounts: string;
  skip_queue: Flag;
  webirc_password: string;
}

export interface ConnectionsTable {
  id: Generated<number>;
  user_id: number;
  connection_id: string;
  name: string;
  url: string;
  /** JSON array of strings. */
  on_connect_commands: string;
  wanted_state: "connected" | "disconnected";
  nick: string;
  target: string;
  /** µs. */
  created: number;
  tls_cert: Generated<string>;
  tls_key: Generated<string>;
  cert_fingerprint: Generated<string>;
}

export interface ConversationsTable {
  id: Generated<number>;
  connection: number;
  /** The IRC-casefolded name; '' holds the server's own messages. */
  conversation_id: string;
  name: string;
  topic: Generated<string>;
  /** Written by each backend's message writer, never here. */
  unread: Generated<number>;
  /** µs. */
  last_read: Generated<number>;
  joined: Flag;
  /** µs. */
  created: number;
  notify: Generated<string>;
  draft: Generated<string>;
  detached: Flag;
  relay_detached: Generated<string>;
  reattach_on: Generated<string>;
  detach_after: Generated<number>;
  /** The channel's key (+k), '' when none: never in an API answer. */
  channel_key: Generated<string>;
}

interface PushSubscriptionsTable {
  endpoint: string;
  user_id: number;
  session_hash: string;
  p256dh: string;
  auth: string;
  created: number;
}

interface IrcPushSubscriptionsTable {
  endpoint: string;
  user_id: number;
  connection: number | null;
  client: string;
  credential: string;
  p256dh: string;
  auth: string;
  created: number;
}

interface PushPrefsTable {
  user_id: number;
  auto_away: Flag;
}

interface IgnoresTable {
  user_id: number;
  mask: string;
  /** The place in the user's list. */
  seq: number;
  created: number;
}

interface AppTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  created: number;
  last_used: number;
}

interface CertfpsTable {
  fingerprint: string;
  user_id: number;
  created: number;
}

export interface FilesTable {
  /** Insertion order: listings are newest first by seq, which never ties. */
  seq: Generated<number>;
  user_id: number;
  /** The API's file id, unique per user. */
  file_id: string;
  name: string;
  size: number;
  content_type: string;
  write_only: Flag;
  /** µs. */
  saved: number;
  /**
   * PostgreSQL's reference to the contents (`file_blobs`); SQLite has no such column (contents are
   * found by the file's id), so it is never read there and written only where a backend's
   * contents give it.
   */
  blob: ColumnType<number | null | undefined, number | undefined, number | undefined>;
}

/** PostgreSQL only: blobs being written, until their file row takes them (store/pg/files.ts). */
interface FileUploadsTable {
  blob: number;
  /** µs. */
  started: number;
}

/** PostgreSQL only: files' contents in chunks (store/pg/files.ts). */
interface FileBlobsTable {
  blob: number;
  n: number;
  data: Uint8Array;
}

/** The tables the shared table groups (store/tables/) read and write. */
export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  settings: SettingsTable;
  connection_profiles: ConnectionProfilesTable;
  connections: ConnectionsTable;
  conversations: ConversationsTable;
  push_subscriptions: PushSubscriptionsTable;
  irc_push_subscriptions: IrcPushSubscriptionsTable;
  push_prefs: PushPrefsTable;
  ignores: IgnoresTable;
  app_tokens: AppTokensTable;
  certfps: CertfpsTable;
  files: FilesTable;
  file_uploads: FileUploadsTable;
  file_blobs: FileBlobsTable;
}
