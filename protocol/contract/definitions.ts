/**
 * The API's named schemas (`#/definitions/<id>` in the document), as Convos's document names them.
 * Operations use them for answers, and updateSettings and saveConnectionProfile for their bodies.
 */
import { z } from "zod";
import { password } from "./fields.ts";
import { RETENTION_ERROR, retentionDays } from "../retention.ts";
import { type MessageType } from "../events.ts";
import { TYPES } from "../messages.ts";
import { WEBIRC_PASSWORD } from "../limits.ts";
import { LINE_KINDS } from "../events.ts";

/** The roles a user may have. */
export const ROLES = ["admin", "bot"] as const;

/** Every kind of message history holds. */
const messageType = z.enum(TYPES as [MessageType, ...MessageType[]]);

export const Connection = z.object({
  connection_id: z.string().meta({ description: "Unique identifier for this connection" }),
  info: z.record(z.string(), z.unknown()).meta({
    description: "Extra information about the connection",
  }).optional(),
  name: z.string().meta({ description: "Name for this connection" }).optional(),
  on_connect_commands: z.array(z.string()).meta({
    description: "Commands to be run after the connection is established",
  }).optional(),
  state: z.enum(["connected", "connecting", "disconnected", "disconnecting", "queued"]).meta({
    description: "Actual connection state",
  }).optional(),
  url: z.string().meta({
    description: "Example: irc://user:@irc.perl.org?nick=superman (Note: Without password)",
    format: "uri",
  }),
  wanted_state: z.enum(["connected", "disconnected"]).meta({
    description: "Wanted connection state",
  }).optional(),
  service_accounts: z.array(z.string()).meta({
    description: "Nicks of the network's services, from the host's connection profile.",
  }).optional(),
}).meta({ id: "Connection" });

/** An irc:// or ircs:// URL with a host. */
const ircUrl = (error: string) =>
  z.string({ error: "url is required." }).trim().refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "irc:" || u.protocol === "ircs:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, { error });

/** A connection profile: saveConnectionProfile's body, and each entry of the listing. */
export const ConnectionProfile = z.object({
  url: ircUrl("url must be an irc:// or ircs:// URL with a host.").meta({ format: "uri" }),
  is_default: z.boolean().optional(),
  is_forced: z.boolean().optional(),
  max_bulk_message_size: z.number().int().min(1).max(32).optional(),
  max_message_length: z.number().int().min(32).max(2048).optional(),
  service_accounts: z.array(z.string().trim().min(1).max(64)).max(32).optional(),
  // A secret never sent out: "" (what a client that was not given it sends back) keeps the stored
  // one, null clears it.
  webirc_password: z.string().max(256).refine((p) => p === "" || WEBIRC_PASSWORD.test(p), {
    error: "A WEBIRC password is one word of printable ASCII, not starting with a colon.",
  }).nullable().meta({
    description:
      "Write-only in Parley: stored, never returned; admins see webirc_password_set instead. On save an empty string keeps the stored password and null clears it. One word of printable ASCII, not starting with a colon.",
  }).optional(),
  skip_queue: z.boolean().meta({
    description: "Connect without waiting in the per-host connect queue.",
  }).optional(),
  webirc_password_set: z.boolean().meta({
    description: "Parley: whether a WEBIRC password is stored (admins only).",
    readOnly: true,
  }).optional(),
  id: z.string().meta({
    description: "Parley: irc- and the short name of the host (irc-example).",
    readOnly: true,
  }).optional(),
}).meta({ id: "ConnectionProfile" });

export const Conversation = z.object({
  connection_id: z.string().meta({
    description: "Unique identifier for the connection this conversation is part of",
  }),
  conversation_id: z.string().meta({ description: "Unique identifier for the conversation" }),
  name: z.string().meta({ description: "Name of the room or person" }),
  topic: z.string().meta({ description: "The subjec/topic for this room" }).optional(),
  unread: z.number().int().meta({ description: "Number of unread messages" }),
  frozen: z.string().meta({ description: 'Empty, or why nothing can be sent ("Not connected.").' })
    .optional(),
  // Always empty in Parley: Convos's client reads it, Parley has nothing to put there.
  info: z.object({}).meta({ description: "Extra information about the conversation." })
    .optional(),
  notifications: z.number().int().meta({
    description: "Highlighted messages since the conversation was last marked read.",
  }).optional(),
  notify: z.enum(["all", "mentions", "muted"]).meta({
    description: "How much of it notifies the user (setConversationNotify).",
  }).optional(),
  detached: z.boolean().meta({
    description:
      "Parley: a channel detached from IRC clients (setConversationDetached): joined and stored, out of their lists.",
  }).optional(),
}).meta({ id: "Conversation" });

/** The ids a stored line carries, in a Message and a Notification alike. */
const messageIds = {
  msgid: z.string().meta({
    description:
      "Parley: the message's stable id, the same attached IRC clients see in its msgid tag.",
  }).optional(),
  server_msgid: z.string().meta({
    description:
      "Parley: the IRC server's own msgid tag of the line (IRCv3 message-ids), when it gave one.",
  }).optional(),
  reply_to: z.string().meta({
    description:
      "Parley: the server msgid this message replies to (+draft/reply); a react line's message.",
  }).optional(),
};

/** Every field a kept channel event may have (protocol/events.ts: what its line's words read). */
const KEPT_FIELD_NAMES = [
  ...new Set(
    Object.values(LINE_KINDS).flatMap((k) =>
      "from" in k
        ? [...Object.values(k.line.fill), ...("reason" in k.line ? [k.line.reason] : [])]
        : []
    ),
  ),
].sort();

export const Message = z.object({
  from: z.string().meta({ description: "Identifier for who sent this message" }),
  message: z.string().meta({ description: "The message" }),
  fields: z.object(Object.fromEntries(KEPT_FIELD_NAMES.map((f) => [f, z.string().optional()])))
    .meta({
      description:
        "Parley: a channel event's fields, named as its live event names them (join, part, quit: nick, message; kick: nick, kicker, message; nick_change: old_nick, new_nick; topic: nick, topic; mode: nick, mode); `message` says the same in Convos's words. Absent on messages, and on events stored as text by older versions whose text could not be read.",
    }).optional(),
  ts: z.string().meta({ description: "Example: 2015-09-06T13:49:37Z", format: "date-time" }),
  type: messageType.meta({
    description:
      "Convos's private, action, notice, error; history also holds channel events (Parley: join, part, quit, kick, nick_change, topic, mode, react) and gaps (Parley: gap, the connection was down).",
  }).optional(),
  highlight: z.boolean().meta({
    description:
      "Whether it mentions the user (nick or highlight keyword), or is a private message.",
  }).optional(),
  connection_id: z.string().meta({
    description: "In search results: the connection it was said on.",
  }).optional(),
  conversation_id: z.string().meta({
    description: "In search results: the conversation it was said in.",
  }).optional(),
  ...messageIds,
}).meta({ id: "Message" });

export const Notification = z.object({
  connection_id: z.string().meta({
    description: "Unique identifier for the connection this notification came from",
  }).optional(),
  conversation_id: z.string().meta({ description: "Conversation ID" }).optional(),
  from: z.string().meta({ description: "Identifier for who sent this message" }),
  message: z.string().meta({ description: "The message" }),
  ts: z.string().meta({ description: "Example: 2015-09-06T13:49:37Z", format: "date-time" }),
  type: messageType.meta({
    description:
      "Convos's private, action, notice, error; history also holds channel events (Parley: join, part, quit, kick, nick_change, topic, mode, react) and gaps (Parley: gap, the connection was down).",
  }).optional(),
  highlight: z.boolean().meta({
    description:
      "Whether it mentions the user (nick or highlight keyword), or is a private message.",
  }).optional(),
  ...messageIds,
}).meta({ id: "Notification" });

export const Password = password.meta({ description: "User password", id: "Password" });

/** A URL with one of `schemes` and a host; `error` is Convos's wording for the field. */
const uri = (schemes: string[], error: string) =>
  z.string().trim().refine((v) => {
    try {
      const url = new URL(v);
      return schemes.includes(url.protocol.slice(0, -1)) && url.hostname !== "";
    } catch {
      return false;
    }
  }, { error });
const HTTP = ["http", "https"];
const videoService =
  "Base URL of the video-call service Convos's client links conversations to (default https://meet.jit.si/); empty turns it off.";

/** The server's settings: updateSettings's body, and what getSettings answers. */
export const ServerSettings = z.object({
  contact: z.string().trim().min(3, { error: "Contact must be at least 3 characters." }).max(500)
    .optional(),
  default_connection: uri(["irc", "ircs"], "Connection URL require a scheme and host.")
    .meta({ format: "uri" }).optional(),
  disk_usage: z.object({
    blocks_free: z.number().int().optional(),
    block_size: z.number().int().optional(),
    blocks_total: z.number().int().optional(),
    blocks_used: z.number().int().optional(),
    inodes_free: z.number().int().optional(),
    inodes_total: z.number().int().optional(),
    inodes_used: z.number().int().optional(),
    dev: z.string().meta({ description: "The device holding the data folder." }).optional(),
  }).meta({ readOnly: true }).optional(),
  forced_connection: z.boolean().optional(),
  open_to_public: z.boolean().optional(),
  organization_name: z.string().trim().max(200).optional(),
  organization_url: z.union([
    z.literal(""),
    uri(HTTP, "Organization URL require a scheme and host."),
  ]).optional(),
  video_service: z.union([z.literal(""), uri(HTTP, "Video service URL require a scheme and host.")])
    .meta({ description: videoService }).optional(),
  max_connections_per_user: z.number().int().min(1).max(10_000).meta({
    description: "Parley: how many connections one user may have.",
  }).optional(),
  max_conversations_per_connection: z.number().int().min(1).max(1_000_000).meta({
    description: "Parley: how many conversations one connection may have.",
  }).optional(),
  irc_allow_private: z.boolean().meta({
    description: "Parley: whether users may connect to private and loopback addresses.",
  }).optional(),
  new_user_connection: z.boolean().meta({
    description: "Parley: whether every new user gets the default connection (else none).",
  }).optional(),
  max_file_bytes_per_user: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({
    description:
      "Parley: how many bytes of files (uploads and pastes) one user may keep; 0 for no bound.",
  }).optional(),
  message_retention: z.string().trim().refine((v) => retentionDays(v) !== undefined, {
    error: RETENTION_ERROR,
  }).meta({
    description:
      "Parley: messages older than this are deleted (`365d`, `12w`, `1y`); empty or `0` keeps them all.",
  }).optional(),
  message_retention_locked: z.boolean().meta({
    description:
      "Parley: PARLEY_MESSAGE_RETENTION is set: it decides, and message_retention shows it.",
    readOnly: true,
  }).optional(),
}).meta({ id: "ServerSettings" });

export const Success = z.object({
  message: z.string().meta({ description: "Human readable description" }).optional(),
}).meta({ id: "Success" });

export const User = z.object({
  connections: z.array(Connection).optional(),
  conversations: z.array(Conversation).optional(),
  default_connection: z.string().meta({ readOnly: true }).optional(),
  forced_connection: z.boolean().meta({ readOnly: true }).optional(),
  email: z.string().meta({ description: "Unique email identifying a user in Convos" }),
  highlight_keywords: z.array(z.string()).meta({ description: "Extra keywords to highlight on" })
    .optional(),
  registered: z.string().meta({ description: "Example: 2015-09-06T10:47:31Z", format: "date-time" })
    .optional(),
  uid: z.string().optional(),
  unread: z.number().int().meta({ description: "Number of unread notifications" }),
  video_service: z.string().meta({ description: videoService }).optional(),
  message_retention_days: z.number().int().meta({
    description:
      "Parley: messages older than this many days are deleted; absent while they are all kept.",
    readOnly: true,
  }).optional(),
  remote_address: z.string().meta({
    description: "The caller's own address, on their own account.",
  }).optional(),
  roles: z.array(z.enum(ROLES)).meta({
    description: "Parley: the user's roles; the first registered user is admin.",
  }).optional(),
  suspended: z.literal(true).meta({
    description:
      "Parley: present while an admin has suspended the account: nobody logs in to it and its IRC connections do not run.",
    readOnly: true,
  }).optional(),
  csrf: z.string().meta({
    description:
      "Parley: the token logoutUser asks for; on the caller's own account (getUser, loginUser, registerUser).",
    readOnly: true,
  }).optional(),
}).meta({ id: "User" });
