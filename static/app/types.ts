/** The shapes the API and the /events socket deliver. */
import type { RequestBody } from "../../protocol/contract/types.ts";
import type { MessageJson, MessagePage as StoredPage } from "../../protocol/messages.ts";
import type { ConnectionJson, ConversationJson } from "../../protocol/resources.ts";
import type { UserJson } from "../../protocol/resources.ts";

/** One error entry of the API's error body. */
export interface ApiErrorItem {
  message: string;
  path?: string;
}

/**
 * A connection as the API shapes it (protocol/resources.ts); the socket's state events patch parts of
 * it, so only its id and URL are always there.
 */
export type Connection = Pick<ConnectionJson, "connection_id" | "url"> & Partial<ConnectionJson>;

/** A conversation as the API shapes it (protocol/resources.ts); events carry its core. */
export type Conversation =
  & Pick<ConversationJson, "connection_id" | "conversation_id" | "name" | "unread">
  & Partial<ConversationJson>;

/** The user as getUser shapes it (protocol/resources.ts), with the lists in the client's types. */
export type User =
  & Pick<UserJson, "email" | "unread">
  & Partial<Omit<UserJson, "connections" | "conversations" | "roles">>
  & {
    /** The roles updateUser takes (the server's zod enum). */
    roles?: NonNullable<RequestBody<"updateUser">["roles"]>;
    csrf?: string;
    connections?: Connection[];
    conversations?: Conversation[];
  };

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
