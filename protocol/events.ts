/**
 * The event protocol, declared once: every event on the bus (lib/bus.ts) and every frame of the
 * `/events` WebSocket, both ways, and the kinds of line they bring (LINE_KINDS). Publishers,
 * routes/events.ts and the web client (types and pure data, so nothing of the server is bundled)
 * import them: a field one side reads and the other does not send is a type error. Field names
 * are Convos's where Convos has the event.
 * docs/events.md describes the same frames; tests/unit/protocol/events_doc_test.ts keeps them in
 * step.
 */
import type { ConnectionState } from "./resources.ts";
import type { ClientSettings } from "./client_settings.ts";
import type { RequestId } from "./event_requests.ts";
import type { DetachState } from "./detach.ts";

/** One error entry, as in the API's error body; `path` points into the request. */
export interface EventError {
  message: string;
  path: string;
}

/** Where an event happened: the connection, and the IRC-casefolded conversation ("" = server). */
interface Where {
  connection_id: string;
  conversation_id: string;
}

// ---- Pushed events (server -> client, and on the bus) ----

/** A message was stored: from someone else, from the user, or from the server. */
export interface MessageEvent extends Where {
  event: "message";
  from: string;
  message: string;
  /** RFC 3339 with microseconds, as the history API returns it. */
  ts: string;
  type: ChatType;
  highlight: boolean;
  /** The message's stable id (lib/msgid.ts), as attached IRC clients and the API name it. */
  msgid: string;
  /** The IRC server's own `msgid` tag of the line (IRCv3 message-ids), when it gave one. */
  server_msgid?: string;
  /** The server msgid this message replies to (its `+draft/reply` tag). */
  reply_to?: string;
}

/**
 * A `message` as the bus carries it on the node that stored it: `origin` is the token the sender
 * gave the send (an attached IRC client's line, bouncer/relay.ts), so the relay knows its stored
 * copy without comparing texts; `to` the nick a line was said to when it is kept in the server's
 * conversation (a service's, irc/chat/record.ts), so the relay can say it to IRC clients as said.
 * Neither is sent on a socket (routes/events.ts drops them).
 */
export type BusMessageEvent = MessageEvent & { origin?: string; to?: string };

/**
 * A conversation's read marker moved forward (read in the web client, through the API or by an
 * attached IRC client's MARKREAD): attached clients are told with a MARKREAD.
 */
interface ReadEvent extends Where {
  event: "read";
  /** Read up to here: RFC 3339 with microseconds. */
  ts: string;
}

/** A conversation's unread count changed; `conversation_id` null: every one of the connection. */
interface UnreadEvent {
  event: "unread";
  connection_id: string;
  conversation_id: string | null;
  unread: number;
}

/**
 * A message that notifies the user was stored: a mention (also listed by
 * `GET /api/notifications`) in a conversation that is not muted, or any message of one whose level
 * is "all" (then `highlight` is false).
 */
export interface NotificationEvent extends Where {
  event: "notification";
  from: string;
  message: string;
  ts: string;
  type: ChatType;
  highlight?: boolean;
  /**
   * A mention in the server's history, stored after a gap: counted as any other, but news no
   * longer (no desktop notification, sound or push).
   */
  history?: true;
}

/**
 * A channel event of the server's history, kept after a gap (a join, part, kick, quit, nick
 * change, topic or mode the server played back): its line as a history page gives it, for a
 * client that has the conversation open to show in its place. Unlike the `state` event of a live
 * one it changes nothing: members and topic are what the reconnect told.
 */
interface PastEvent extends Where {
  event: "past";
  type: KeptKind;
  from: string;
  fields: KeptFields;
  /** The line's time in the history (its identity there). */
  ts: string;
}

/** The user's count of unread notifications (the User's `unread`) is now `unread`. */
interface NotificationsEvent {
  event: "notifications";
  unread: number;
}

/**
 * The user's web client settings changed (on any device): all of them, as the API returns them.
 * Events may come after the answer to the save, or out of order: the larger `revision` is newer.
 */
interface ClientSettingsEvent {
  event: "client_settings";
  settings: ClientSettings;
}

/**
 * An admin's announcement (`BouncerServ server notice`), to every user: each open tab shows it,
 * and each attached IRC client gets it as a NOTICE from the server.
 */
interface ServerNoticeEvent {
  event: "server_notice";
  /** The admin's email. */
  from: string;
  message: string;
}

/** The server shuts down; the socket closes with 1001 next. */
interface ShutdownEvent {
  event: "shutdown";
}

/**
 * Sessions of the user ended (a logout, one removed on the sessions page, a new password, a
 * suspension, the account's deletion): each of their sockets, on every node, checks its own
 * session at once and closes when it is gone. Never sent to a page (not a PushedEvent).
 */
interface SessionsEndedEvent {
  event: "sessions_ended";
}

/** The one SessionsEndedEvent, published wherever sessions are removed. */
export const SESSIONS_ENDED: SessionsEndedEvent = { event: "sessions_ended" };

interface State<T extends string> {
  event: "state";
  type: T;
  connection_id: string;
}

/** The connection's actual state; `message` says why when it changed. */
interface ConnectionStateEvent extends State<"connection"> {
  state: ConnectionState;
  info: Record<string, unknown>;
  message?: string;
}

/** The connection's info fields, at the top level (as Convos's client reads them). */
export interface InfoStateEvent extends State<"info"> {
  [field: string]: unknown;
}

/** A new conversation exists. */
interface ConversationStateEvent extends State<"conversation">, Where {
  name: string;
  topic: string;
  unread: number;
  /** Parley: a channel's detachment from IRC clients changed (its new state). */
  detached?: boolean;
}

/** Whether a conversation takes messages: why not, or "" when it does. */
interface FrozenStateEvent extends State<"frozen">, Where {
  name: string;
  topic: string;
  unread: number;
  frozen: string;
  info: Record<string, never>;
  notifications: number;
}

/** Someone (or the user) joined a channel. */
interface JoinStateEvent extends State<"join">, Where {
  nick: string;
  /**
   * The time of the join's line in the channel's history (RFC 3339 with microseconds), its
   * identity there: a client that shows the line live and then loads the page holding it shows
   * one line. Absent when no line was kept.
   */
  ts?: string;
}

/**
 * Someone left a channel or was kicked (`kicker`), or the user closed a conversation (`closed`:
 * it is gone from the list, on every device).
 */
interface PartStateEvent extends State<"part">, Where {
  nick: string;
  message?: string;
  kicker?: string;
  /** The time of the line in the channel's history, as for a join; absent when none was kept. */
  ts?: string;
  /** The conversation was closed: removed from the user's conversations. */
  closed?: boolean;
}

/** Someone quit IRC. */
interface QuitStateEvent extends State<"quit"> {
  nick: string;
  message?: string;
}

/** Someone (or the user) is away (`away` true, with their `message`) or back. */
interface AwayStateEvent extends State<"away"> {
  nick: string;
  away: boolean;
  message?: string;
}

/** Someone (or the user) changed nick. */
interface NickChangeStateEvent extends State<"nick_change"> {
  old_nick: string;
  new_nick: string;
}

/** A private conversation followed its person to a new nick; `name` is that nick as spelled. */
interface RenameStateEvent extends State<"rename">, Where {
  old_conversation_id: string;
  name: string;
}

/** The topic is now `topic` (on join, or set by `nick`). */
interface TopicStateEvent extends State<"topic">, Where {
  topic: string;
  nick?: string;
  /** A change's line in the history: its time, its identity there (as a join's `ts`). */
  ts?: string;
}

/** A mode change (`+o bob`); `conversation_id` "" for user modes. */
interface ModeStateEvent extends State<"mode">, Where {
  target: string;
  mode: string;
  nick?: string;
  /** A channel mode's line in the history: its time, its identity there (as a join's `ts`). */
  ts?: string;
}

/**
 * The connection was down from `from` to `to` (RFC 3339): messages in between may be missing.
 * `message` is the stored line's text, `ts` its time.
 */
interface GapStateEvent extends State<"gap">, Where {
  from: string;
  to: string;
  message: string;
  ts: string;
}

/**
 * Someone is typing (IRCv3 `+typing` on a TAGMSG): `typing` is `active`, `paused` or `done`; the
 * client expires `active` after 6 s and `paused` after 30 s.
 */
interface TypingStateEvent extends State<"typing">, Where {
  nick: string;
  typing: string;
}

/** Someone reacted (`+draft/react`) to the message whose server msgid is `reply_to`. */
interface ReactStateEvent extends State<"react">, Where {
  nick: string;
  react: string;
  reply_to: string;
  /** The kept line's time, as for a join; absent when nothing was kept. */
  ts?: string;
}

/** `nick` invited the user to the channel `name` (its `conversation_id`, which may not exist). */
interface InviteStateEvent extends State<"invite">, Where {
  name: string;
  nick: string;
}

/** The server refused something (`cannot_send_to_channel`, `no_such_nick`...). */
interface ErrorStateEvent extends State<"error">, Where {
  message: string;
  error: string;
}

/** Something changed that is not a message; `type` says what. */
export type StateEvent =
  | ConnectionStateEvent
  | InfoStateEvent
  | ConversationStateEvent
  | FrozenStateEvent
  | JoinStateEvent
  | PartStateEvent
  | QuitStateEvent
  | AwayStateEvent
  | NickChangeStateEvent
  | RenameStateEvent
  | TopicStateEvent
  | ModeStateEvent
  | GapStateEvent
  | TypingStateEvent
  | ReactStateEvent
  | InviteStateEvent
  | ErrorStateEvent;

/** A state event of a connection's channels and people, as IRC tells it (irc/chat/inbound/). */
export type ChannelStateEvent = Exclude<StateEvent, ConnectionStateEvent | InfoStateEvent>;

// ---- Lines: what a conversation shows and history keeps ----

/** How a line looks in the client; each look is told apart at a glance. */
export type LineLook = "chat" | "action" | "notice" | "error" | "event" | "gap";

/** The state event of type `T`. */
type StateOf<T extends ChannelStateEvent["type"]> = Extract<ChannelStateEvent, { type: T }>;

/** A field of an event that a line may read. */
type FieldOf<E> = Exclude<keyof E, "event" | "type" | "connection_id"> & string;

/**
 * The words of a line the client makes from its state event: a template of the dictionaries
 * (i18n/), the event fields that fill its placeholders, and when it is shown.
 */
export interface Words<E> {
  /** The template, as en.json spells it. */
  say: string;
  /** Each placeholder's field of the event (a missing one reads as ""). */
  fill: Record<string, FieldOf<E>>;
  /** A field added in brackets when set: a part's or a quit's reason. */
  reason?: FieldOf<E>;
  /** Shown only when this field is set. */
  when?: FieldOf<E>;
  /** Not shown when this field is set: a part with a kicker is the kick's line. */
  unless?: FieldOf<E>;
  /**
   * For an event of the whole connection (a quit, a nick change): shown in the open conversation
   * of that connection while the person this field names is among its members.
   */
  member?: FieldOf<E>;
}

/** The state event carries the line as history keeps it (`message`, `ts`): shown as stored. */
type Stored<E> = E extends { message: string; ts: string } ? "stored" : never;

/** The channel a kept line is in, as a parameter of its IRC line (no field is named so). */
export const CHANNEL = "#channel";

/** A field as one word of an IRC line (a nick): the line is not made when it is missing or empty. */
type IrcWord<F extends string> = typeof CHANNEL | F;

/**
 * The last parameter of an IRC line, the only one that may hold spaces: a field as text (`text`:
 * missing reads as empty; with `optional`, the parameter is left out), or a field split into
 * words (`words`: a mode and its arguments; the line is not made when it has none).
 */
type IrcLast<F extends string> = { text: F; optional?: true } | { words: F };

/**
 * A kept line as IRC tells it to attached clients' history (bouncer/history/lines.ts): its
 * command and its parameters, made from the row's fields; `null` when no IRC line carries it.
 * Data, so the web client's bundle takes no code for it.
 */
type IrcForm<F extends string> = {
  command: string;
  params: readonly IrcWord<F>[] | readonly [...IrcWord<F>[], IrcLast<F>];
} | null;

/** One kind of line: its stored code, the bus event that brings it live, how the client shows it. */
export type LineKind =
  | { code: number; live: "message"; look: LineLook }
  | {
    [L in ChannelStateEvent["type"]]: {
      code: number;
      /** The `type` of the `state` event that carries it. */
      live: L;
      look: LineLook;
      /** What the client shows when the event arrives, and when a history row of it is read. */
      line: Words<StateOf<L>> | Stored<StateOf<L>>;
      /**
       * Kept as data: the field the row's sender holds (who did it). The row keeps the other
       * fields its words read (`fill` and `reason`) as JSON; the history API hands them back with
       * the sender's, so a stored line is shown by the same words as a live one, and the bouncer
       * makes its IRC line from them. Absent: the row keeps its text (a gap's, a reaction's).
       */
      from?: FieldOf<StateOf<L>>;
      /** Its IRC line, for attached clients' history: every kind says it (or `null`). */
      irc: IrcForm<FieldOf<StateOf<L>>>;
    };
  }[ChannelStateEvent["type"]];

/**
 * Every kind of line in a conversation, declared once, keyed by its stored type. From it come the
 * store's types and codes (store/message_types.ts; the codes are stored data, never renumbered),
 * the words of the line the web client shows when its event arrives (static/app/session.ts), and
 * its rendering, by `look` (static/app/components/MessageList.tsx); docs/events.md's table of
 * lines lists these keys (tests/unit/protocol/events_doc_test.ts). A live event that is not on
 * the bus, or a field its words name that the event lacks, is a type error. Pure data: the web
 * client bundles it.
 */
export const LINE_KINDS = {
  private: { code: 0, live: "message", look: "chat" },
  action: { code: 2, live: "message", look: "action" },
  notice: { code: 1, live: "message", look: "notice" },
  error: { code: 3, live: "message", look: "error" },
  join: {
    code: 4,
    live: "join",
    look: "event",
    line: { say: "{nick} joined", fill: { nick: "nick" } },
    from: "nick",
    irc: { command: "JOIN", params: [CHANNEL] },
  },
  part: {
    code: 5,
    live: "part",
    look: "event",
    line: { say: "{nick} left", fill: { nick: "nick" }, reason: "message", unless: "kicker" },
    from: "nick",
    irc: { command: "PART", params: [CHANNEL, { text: "message", optional: true }] },
  },
  // A kick comes as a part with `kicker`, as Convos sends it.
  kick: {
    code: 7,
    live: "part",
    look: "event",
    line: {
      say: "{nick} was kicked by {by}",
      fill: { nick: "nick", by: "kicker" },
      reason: "message",
      when: "kicker",
    },
    from: "kicker",
    irc: { command: "KICK", params: [CHANNEL, "nick", { text: "message" }] },
  },
  quit: {
    code: 6,
    live: "quit",
    look: "event",
    line: { say: "{nick} quit", fill: { nick: "nick" }, reason: "message", member: "nick" },
    from: "nick",
    irc: { command: "QUIT", params: [{ text: "message" }] },
  },
  nick_change: {
    code: 8,
    live: "nick_change",
    look: "event",
    line: {
      say: "{old} is now known as {new}",
      fill: { old: "old_nick", new: "new_nick" },
      member: "old_nick",
    },
    from: "old_nick",
    irc: { command: "NICK", params: ["new_nick"] },
  },
  // Shown live when someone set it, not when a join tells it.
  topic: {
    code: 9,
    live: "topic",
    look: "event",
    line: {
      say: "{nick} changed the topic to: {topic}",
      fill: { nick: "nick", topic: "topic" },
      when: "nick",
    },
    from: "nick",
    irc: { command: "TOPIC", params: [CHANNEL, { text: "topic" }] },
  },
  // Channel modes only: user modes have no conversation.
  mode: {
    code: 10,
    live: "mode",
    look: "event",
    line: {
      say: "{nick} sets mode {mode}",
      fill: { nick: "nick", mode: "mode" },
      when: "conversation_id",
    },
    from: "nick",
    irc: { command: "MODE", params: [CHANNEL, { words: "mode" }] },
  },
  // Said to IRC clients as a NOTICE from Parley itself (bouncer/history/lines.ts): no one sent it.
  gap: { code: 11, live: "gap", look: "gap", line: "stored", irc: null },
  // Kept with the message it reacts to (its `reply_to`): the client counts it under that message.
  react: {
    code: 12,
    live: "react",
    look: "event",
    line: { say: "{nick} reacted {react}", fill: { nick: "nick", react: "react" } },
    irc: null,
  },
} as const satisfies Record<string, LineKind>;

/** A stored line's type (the history API's `type`). */
export type MessageType = keyof typeof LINE_KINDS;

/** The kinds of line kept as data (their row's fields), not as text: those that name a `from`. */
export type KeptKind = {
  [K in MessageType]: (typeof LINE_KINDS)[K] extends { from: string } ? K : never;
}[MessageType];

type WordsOf<K extends KeptKind> = (typeof LINE_KINDS)[K]["line"];
type FillOf<K extends KeptKind> = WordsOf<K> extends { fill: infer F } ? F[keyof F] : never;
type ReasonOf<K extends KeptKind> = WordsOf<K> extends { reason: infer R } ? R : never;

/**
 * The fields of a kept line of kind `K`: those its words read, named as its live event names them
 * (`{nick, kicker, message}` for a kick). `cx.keep` takes them, the store keeps them and the
 * history API gives them beside `message`; the reason is absent when none was given.
 */
export type KeptFields<K extends KeptKind = KeptKind> = K extends KeptKind ?
    & { [F in FillOf<K> & string]: string }
    & { [F in ReasonOf<K> & string]?: string }
  : never;

/** Convos's message types, brought by `message` events: `private` is a PRIVMSG (a channel's too). */
export type ChatType = {
  [K in MessageType]: (typeof LINE_KINDS)[K]["live"] extends "message" ? K : never;
}[MessageType];

/** `Omit` for each member of a union, so each keeps its own fields. */
export type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What publishers put on the bus and every `/events` socket of the user receives. */
export type PushedEvent =
  | MessageEvent
  | UnreadEvent
  | ReadEvent
  | NotificationEvent
  | PastEvent
  | NotificationsEvent
  | ClientSettingsEvent
  | StateEvent
  | ServerNoticeEvent
  | ShutdownEvent;

/** What the bus carries to a user's sockets: the pushed events, and what only the sockets act on. */
export type BusEvent = PushedEvent | SessionsEndedEvent;

/** Seen only by bus taps (never on a socket): the user's open sockets, after one came or went. */
export interface ListenersEvent {
  event: "listeners";
  count: number;
}

/**
 * Seen only by bus taps: a channel's detachment for IRC clients changed (stored already); the
 * bouncer's hub of the connection acts on it.
 */
export interface DetachEvent {
  event: "detach";
  connection_id: string;
  /** The channel's name as IRC spells it. */
  channel: string;
  state: DetachState;
  /** Whether `detached` changed (its clients get a PART, or the channel's JOIN burst). */
  toggled: boolean;
}

/**
 * Seen only by bus taps, told for user 0 (every user): detachment changes may have been missed
 * here (this node listened again after losing its database session, and what the other nodes told
 * meanwhile reached nobody); the bouncer's hubs read them from the store again.
 */
export interface DetachMissedEvent {
  event: "detach_missed";
}

/** Everything a bus tap sees. */
export type TapEvent = BusEvent | ListenersEvent | DetachEvent | DetachMissedEvent;

/** The kind of a bus event (its `event`). */
export type EventKind = TapEvent["event"];

// ---- Requests (client -> server) ----

// The requests (ping, load, send) and their ids are declared once, as the zod schemas the server
// reads them with; a type-only export, so the web client's bundle carries no zod.
export type { ClientRequest, RequestId } from "./event_requests.ts";

// ---- Answers (server -> client) ----

/** The first frame on every socket: the user's id, or why the socket is refused. */
type HandshakeFrame =
  | { event: "handshake"; uid: string; errors?: undefined }
  | { event: "handshake"; errors: EventError[] };

/** The answer to a ping. */
interface PongFrame {
  event: "pong";
  id: RequestId;
  method?: "ping";
  ts: string;
}

/** The answer to `load`: the User resource; its shape is the API's (protocol/contract). */
interface LoadFrame<User = Record<string, unknown>> {
  event: "load";
  id: RequestId;
  method: "load";
  user: User;
}

/** What a command adds to its `sent` answer (docs/events.md, the table of commands). */
export interface SendResult {
  /** The conversation the command concerns (`/query`, `/msg`, `/join`, `/part`, `/mode`). */
  conversation_id?: string;
  topic?: string;
  /** `/topic` asked: who set the topic (RPL_TOPICWHOTIME: a nick or a mask) and when. */
  topic_by?: string;
  topic_at?: string;
  /** The server's WHOIS reply, or `{nick, error}` when it gave none. */
  whois?: { nick?: string; error?: string; [field: string]: unknown };
  modes?: string;
  /** `/list` in Convos's shape... */
  conversations?: { name: string; n_users: number; topic: string }[];
  n_conversations?: number;
  done?: boolean;
  /** How many of the listed channels matched `/text/` (`channels` keeps at most 1,000). */
  n_matched?: number;
  /** ...and in Parley's. */
  channels?: { name: string; users: unknown; topic: string }[];
  /** `/names` in Convos's shape (one mode string each)... */
  participants?: { nick: string; mode: string }[];
  /** ...and in Parley's. */
  names?: { nick: string; modes: string[]; away?: boolean }[];
  cleared?: boolean;
  /** `/ison`: the nick asked, and whether it is on IRC (Convos's fields). */
  nick?: string;
  online?: boolean;
  /**
   * `/ctcp`: whom it asked and what, and the answer's text (`seconds`: a PING's round trip), or
   * `error: "timeout"` when none came.
   */
  ctcp?: { nick: string; type: string; reply?: string; seconds?: number; error?: "timeout" };
  /** `/invite`: whom the server confirms it invited, and where. */
  invited?: { nick: string; channel: string };
  /** `/msg` to a nick the server does not know: nothing was kept. */
  no_such_nick?: string;
  /** `/ignore`: the mask added (`/unignore`: removed), and the user's whole list after it. */
  ignored?: string;
  unignored?: string;
  ignores?: string[];
}

/** A send that went through: the request's fields plus what the command returned. */
export interface SentFrame extends SendResult {
  event: "sent";
  id: RequestId;
  method: "send";
  connection_id: string;
  conversation_id: string;
  message: string;
  errors?: undefined;
}

/** A send that failed; the error paths point into the request object. */
interface SentErrorFrame {
  event: "sent";
  id: RequestId;
  method: "send";
  connection_id: unknown;
  conversation_id: unknown;
  errors: EventError[];
}

/** The answer to `presence`: what the server now counts this page as. */
interface PresenceFrame {
  event: "presence";
  id: RequestId;
  method: "presence";
  here: boolean;
  errors?: undefined;
}

/** A presence request without its `here`. */
interface PresenceErrorFrame {
  event: "presence";
  id: RequestId;
  method: "presence";
  errors: EventError[];
}

/** Not JSON, or the session has ended; no `id`. */
interface ErrorFrame {
  event: "error";
  errors: EventError[];
}

/** An unknown method is answered by an event named after it, as Convos does. */
export interface UnknownMethodFrame {
  event: string;
  id: RequestId;
  method?: string;
  errors: EventError[];
}

/** The answer to each request. */
export interface AnswerTo<User = Record<string, unknown>> {
  ping: PongFrame;
  load: LoadFrame<User>;
  send: SentFrame | SentErrorFrame;
  presence: PresenceFrame | PresenceErrorFrame;
}

/** Every frame the server sends (besides an unknown method's answer, named after the method). */
export type ServerFrame<User = Record<string, unknown>> =
  | PushedEvent
  | HandshakeFrame
  | AnswerTo<User>[keyof AnswerTo]
  | ErrorFrame;
