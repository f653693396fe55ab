/**
 * Messages as the API gives them, and the stored code of each kind of line: the codes come from
 * the one declaration of the kinds of line (`LINE_KINDS`, events.ts); `private` is a PRIVMSG (in
 * a channel too), `error` a failure shown in place.
 */
import { LINE_KINDS, type MessageType } from "./events.ts";

/** Stored codes (`messages.type`), as declared; codes from FIRST_EVENT_CODE on are channel events. */
export const TYPE_CODE = Object.fromEntries(
  Object.entries(LINE_KINDS).map(([type, kind]) => [type, kind.code]),
) as Record<MessageType, number>;

/**
 * The first code of a channel event: rows with `type >= FIRST_EVENT_CODE` are not searchable.
 * Stored data and the history queries rely on it; a test keeps the declared codes on its sides.
 */
export const FIRST_EVENT_CODE = 4;

/** The type of each stored code. */
export const TYPES: MessageType[] = Object.entries(TYPE_CODE).sort((a, b) => a[1] - b[1])
  .map(([name]) => name as MessageType);

/** A message as the API returns it. */
export interface MessageJson {
  from: string;
  /**
   * What was said. For a channel event kept as `fields` the store gives "", and the history API
   * says it in Convos's words ("bob joined.").
   */
  message: string;
  /**
   * A channel event's fields (a join, part, kick, quit, nick change, topic or mode), named as
   * its live event names them: the client shows the line by the same words as the live one.
   * Absent on messages, and on events stored as text before they were kept as data. A
   * `KeptFields` of its type (typed loosely here, as the API document declares it).
   */
  fields?: Readonly<Record<string, string | undefined>>;
  /** RFC 3339 with microseconds. */
  ts: string;
  type: MessageType;
  highlight?: boolean;
  /** Its stable id (lib/msgid.ts): the same attached IRC clients see. */
  msgid?: string;
  /** The IRC server's own msgid of the line, when it gave one: what replies and reactions name. */
  server_msgid?: string;
  /** The server msgid this line replies to (a `react` line: reacts to). */
  reply_to?: string;
  connection_id?: string;
  conversation_id?: string;
}

/** A page of history or search results as the API returns it. */
export interface MessagePage {
  messages: MessageJson[];
  /** Present when older messages exist: pass as `before` to read them. */
  before?: string;
  /** Present when newer messages exist: pass as `after` to read them. */
  after?: string;
  /** Search only: true when nothing older matches. */
  end?: boolean;
}
