/**
 * What every inbound handler works with: the connection and its client, and the few ways an IRC
 * event reaches the user (a stored message, a stored channel event, a state event on the bus).
 */
import type {
  ChannelStateEvent,
  KeptFields,
  KeptKind,
  OmitEach,
} from "../../../protocol/events.ts";
import { storedFields } from "../../../store/event_fields.ts";
import type { ChatType } from "../../../protocol/events.ts";
import type { IrcConnection } from "../../engine/connection.ts";
import type { IrcClient } from "../../engine/client.ts";
import type { IrcMessage as Message } from "../../protocol/message.ts";
import type { Gathered } from "./replies.ts";
import { cachedConversation, hostOf, type RecordDeps, recordMessage } from "../record.ts";
import { Presence } from "../presence.ts";
import type { LineOut } from "../../engine/outlet.ts";
import { msgidOf } from "../../../lib/msgid.ts";
import { formatMicros } from "../../../protocol/time.ts";

/** The handlers' view of one client of one connection. */
export interface Inbound {
  deps: RecordDeps;
  conn: IrcConnection;
  client: IrcClient;
  /** Who is in which channel, as this client has seen it. */
  presence: Presence;
  /** Publishes a state event of this connection. */
  publish(ev: OmitEach<ChannelStateEvent, "event" | "connection_id">): void;
  /** The conversation_id of a channel or nick. */
  convId(name: unknown): string;
  /** Stores a line of the server's own conversation. */
  server(text: string, ts: number, type?: ChatType): Promise<void>;
  /**
   * Shows the server's answer to a command (`show`): now, or, while IRC clients are attached
   * through the listener, once the outlet has found whose command it answered (LineOut.show):
   * an IRC client's answer is that client's alone.
   */
  answer(show: () => Promise<void>): Promise<void>;
  /**
   * Keeps a channel event in the history of an existing conversation: never unread, notified or
   * searchable. Its kind is one of protocol/events.ts's LINE_KINDS, kept with its fields (as data, no
   * sentence: store/event_fields.ts). Resolves with the stored line's time as the history API
   * spells it (its identity there), or undefined when nothing was stored.
   */
  keep<K extends KeptKind>(
    name: string,
    kind: K,
    fields: KeptFields<K>,
    ts: number,
  ): Promise<string | undefined>;
  /** A reaction is kept as its text, with the server msgid of the message it reacts to. */
  keep(name: string, kind: "react", fields: Reaction, ts: number): Promise<string | undefined>;
  /** Marks a channel as left (the user parted or was kicked). */
  leave(channel: string): Promise<void>;
  /**
   * The channels (conversation ids) joined again after a reconnect whose JOIN or refusal has not
   * come yet: joined with the key Parley keeps, so their modes need not be asked.
   */
  rejoins: Set<string>;
  /**
   * The line being handled, while its handler runs (only when an outlet takes the lines): the
   * handler says what it made of it (a stored row's msgid, or not stored).
   */
  out?: LineOut;
  /**
   * The source of the line being handled, while its handler runs: a kept row whose sender is its
   * nick keeps the rest of it (`user@host`) too.
   */
  source?: string;
}

/** A kept reaction: who, what, and the server msgid of the message. */
type Reaction = { nick: string; react: string; reply_to: string };

/**
 * What one IRC command does: reads the parsed line (its time `ts` in µs, the server's when
 * believed: chat/server_time.ts), updates what Parley keeps and tells. The end numeric of a
 * reply of several lines (replies.ts) is given the lines gathered before it.
 */
export type Handler = (
  cx: Inbound,
  m: Message,
  ts: number,
  got?: Gathered,
) => Promise<void> | void;

/** Handlers of one concern, by IRC command or numeric (irc/protocol/numerics.ts's names). */
export type HandlerTable = Readonly<Record<string, Handler>>;

/** The context for a fresh client of `conn`. */
export function inbound(deps: RecordDeps, conn: IrcConnection, client: IrcClient): Inbound {
  const convId = (name: unknown) => conn.conversationId(String(name ?? ""));
  const publish: Inbound["publish"] = (ev) =>
    deps.bus.publish(conn.userId, { event: "state", connection_id: conn.id, ...ev });
  // Shared with this daemon's other connections to the same network: the server and port, and
  // the network's own name (one bouncer's port can lead to different networks).
  const network = () =>
    `${conn.url.host.toLowerCase()}:${conn.url.port}\n${conn.upstream.networkName}`;
  const presence = new Presence(network, (nick, away, message) => {
    publish({ type: "away", nick, away, ...(away && message ? { message } : {}) });
  });
  return {
    deps,
    conn,
    client,
    presence,
    publish,
    convId,
    server: async (text, ts, type = "notice") =>
      void await recordMessage(deps, conn, { name: "", from: conn.url.host, type, text, ts }),
    answer(show) {
      if (!this.out || !conn.clientsAttached()) return show();
      this.out.show = show;
      return Promise.resolve();
    },
    async keep(
      name: string,
      kind: KeptKind | "react",
      fields: Record<string, string | undefined>,
      ts: number,
    ): Promise<string | undefined> {
      const out = this.out;
      const react = kind === "react" ? fields as Reaction : undefined;
      const row = react
        ? { from: react.nick.slice(0, 100), text: react.react, replyTo: react.reply_to }
        : { ...storedFields(kind as KeptKind, fields as KeptFields), text: "" };
      // From the cache: in channels of hundreds, joins and quits are most of what is stored, and
      // reading the conversation for each was the largest part of storing them.
      const conv = await cachedConversation(deps, conn, name, false);
      if (!conv) {
        if (out) out.produced = { kind: "unstored" };
        return undefined;
      }
      const stored = await deps.store.messages.append({
        conversation: conv.id,
        userId: conn.userId,
        type: kind,
        ts,
        highlight: false,
        ...row,
        // The line's sender is most often the row's (not a topic a join tells, set by another).
        senderHost: hostOf(this.source, row.from),
      });
      if (out) {
        out.produced = out.produced?.kind === "stored" || out.produced?.kind === "spread"
          ? { kind: "spread" }
          : { kind: "stored", msgid: msgidOf(conv.id, stored.ts), ts: stored.ts };
      }
      return formatMicros(stored.ts);
    },
    rejoins: new Set(),
    async leave(channel) {
      const conv = await deps.store.conversations.get(conn.record.id, convId(channel));
      if (conv?.joined) await deps.store.conversations.setJoined(conv.id, false);
    },
  };
}
