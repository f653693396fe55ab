/** The shapes the API and the /events socket deliver. */

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
  roles?: string[];
  highlight_keywords?: string[];
  registered?: string;
  csrf?: string;
  connections?: Connection[];
  conversations?: Conversation[];
}

/** A stored message, or a quiet event line (join, part...) made by the client. */
export interface Message {
  from: string;
  message: string;
  ts: string;
  type?: string;
  highlight?: boolean;
  connection_id?: string;
  conversation_id?: string;
  /** Client-side only: an event line (join, part, quit, nick, topic, mode, error). */
  event?: string;
  /** Client-side only: the answer a command line shows (whois, list). */
  data?: unknown;
}

/** A page of messages. */
export interface MessagePage {
  messages: Message[];
  before?: string;
  after?: string;
  end?: boolean;
}
