/**
 * The JSON of the API's resources, as the server shapes them (irc/resources.ts, routes/user_json.ts)
 * and the web client reads them.
 */
import type { NotifyLevel } from "./limits.ts";

/** The actual state of a connection, as the API reports it. */
export type ConnectionState =
  | "queued"
  | "connecting"
  | "connected"
  | "disconnecting"
  | "disconnected";

/** The state a user asks for. */
export type WantedState = "connected" | "disconnected";

/** The Connection resource. */
export interface ConnectionJson {
  connection_id: string;
  name: string;
  url: string;
  info: Record<string, unknown>;
  on_connect_commands: string[];
  /** Nicks of the network's services (from the host's connection profile). */
  service_accounts: string[];
  state: string;
  wanted_state: WantedState;
}

/** A Conversation as the `conversation` state event announces it. */
export interface ConversationCore {
  connection_id: string;
  conversation_id: string;
  name: string;
  topic: string;
  unread: number;
}

/** The Conversation resource: with `frozen` (why nothing can be sent, or ""), as Convos. */
export interface ConversationJson extends ConversationCore {
  frozen: string;
  info: Record<string, never>;
  notifications: number;
  notify: NotifyLevel;
  detached: boolean;
}

/** The User resource (a type, not an interface, so it passes as a plain JSON record). */
export type UserJson = {
  email: string;
  uid: string;
  registered: string;
  remote_address?: string;
  roles: string[];
  highlight_keywords: string[];
  unread: number;
  default_connection: string;
  forced_connection: boolean;
  video_service: string;
  /** Messages older than this many days are deleted; absent while none are (as Convos's user). */
  message_retention_days?: number;
  /** Present while an admin has suspended the account. */
  suspended?: true;
  connections?: ConnectionJson[];
  conversations?: ConversationJson[];
};
