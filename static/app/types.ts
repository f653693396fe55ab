/** The shapes the API and the /events socket deliver. */
import type { RequestBodies } from "../../http/api_types.ts";
import type { MessageJson, MessagePage as StoredPage } from "../../store/message_types.ts";

/** One error entry of the API's error body. */
export interface ApiErrorItem {
  message: string;
  path?: string;
}

/** A connection as listConnections returns it. */
export interface Connection {
  connection_id: string;
  url: string;
  name?: string;
  state?: string;
  wanted_state?: string;
  on_connect_commands?: string[];
  info?: Record<string, unknown>;
}

/** A conversation. */
export interface Conversation {
  connection_id: string;
  conversation_id: string;
  name: string;
  unread: number;
  topic?: string;
}

/** A user. */
export interface User {
  email: string;
  uid?: string;
  unread: number;
  /** The roles updateUser takes (the server's zod enum). */
  roles?: NonNullable<RequestBodies["updateUser"]["roles"]>;
  highlight_keywords?: string[];
  registered?: string;
  csrf?: string;
  connections?: Connection[];
  conversations?: Conversation[];
}

/** A stored message as the server shapes it, or a quiet event line (join, part...) made by the client. */
export interface Message extends Omit<MessageJson, "type"> {
  /** Absent on a line the client makes. */
  type?: MessageJson["type"];
  /** Client-side only: an event line (join, part, quit, nick, topic, mode, error). */
  event?: string;
  /** Client-side only: the answer a command line shows (whois, list). */
  data?: unknown;
}

/** A page of messages (history, search, notifications), as the server shapes it. */
export interface MessagePage extends Omit<StoredPage, "messages"> {
  messages: Message[];
}
