/**
 * What the app asks of IRC, whichever node runs the connection. On one machine the IRC manager
 * (irc/manager.ts) answers it all; with several nodes on PostgreSQL, cluster/irc.ts answers
 * for the users this node owns and forwards the rest to the node that owns them.
 */
import type { ConnectionRecord } from "../store/connections.ts";
import type { CommandResult } from "./chat/commands.ts";
import type { IrcLine } from "./protocol/message.ts";

/** A conversation a new connection starts with: a channel's key when its URL gave one. */
export interface FirstConversation {
  name: string;
  key?: string;
}

/** A connection's live state and info, as the Connection resource shows them. */
export interface LiveView {
  state: string;
  info: Record<string, unknown>;
}

/** This node's connections counted, for metrics: no names, no users. */
export interface IrcStats {
  /** Connections by state (`connected`, `queued`, ...). */
  byState: Record<string, number>;
  /** Lines waiting for the token bucket, all connections together, and the most on one. */
  sendQueued: number;
  sendQueueMax: number;
}

/** How a line an attached IRC client sent goes out (IrcControl.send). */
export interface SendOptions {
  /** The client's client-only tags, on the line it sends. */
  tags?: Record<string, string>;
  /** The sender's token, on the bus events of the lines it stores (BusMessageEvent). */
  origin?: string;
  /**
   * A client's query (WHO, MODE of a channel, ...): written after the user's own lines, so what
   * anyone says does not wait behind a client's sync of every channel for the flood control.
   */
  background?: boolean;
  /**
   * Written by an attached IRC client, whose answers the listener routes itself: a raw line
   * without it is the web client's, whose answers are shown to the web.
   */
  relayed?: boolean;
  /**
   * A raw line's: told as it is written, before any other line, on the node that runs the
   * connection (not carried to another node); a line it returns is written right after it
   * (`IrcConnection.send`).
   */
  written?: () => IrcLine | undefined;
}

/** The IRC side of the app. Errors are DomainErrors. */
export interface IrcControl {
  /** Starts the connections this node runs (all of them, on one machine). */
  start(): Promise<void>;
  /** Sends QUIT on every connection this node runs and waits (briefly) for them to close. */
  stop(message?: string): Promise<void>;
  /** The live state and info of a stored connection. */
  view(record: ConnectionRecord): Promise<LiveView>;
  /** The live state of each of a user's connections, by row id (absent: disconnected). */
  states(userId: number): Promise<Map<number, string>>;
  /**
   * A connection was just created: run it, make its first conversations (a channel among them
   * is joined once connected, with its key when given), and connect it when it is wanted
   * connected.
   */
  created(record: ConnectionRecord, conversations: readonly FirstConversation[]): Promise<void>;
  /**
   * Brings the running connection in line with its stored record (see IrcManager.apply); with
   * `wait`, waits for a wanted connect and throws `upstream` when it fails.
   */
  applyRecord(record: ConnectionRecord, restart: string | undefined, wait: boolean): Promise<void>;
  /** Stops a connection for good (before its record is deleted). */
  drop(record: ConnectionRecord): Promise<void>;
  /** Stops every connection of a user (before the user is deleted). */
  userDeleted(userId: number): Promise<void>;
  /**
   * A user was suspended (their connections stop, their records kept as they are) or is back
   * (those wanted connected connect again).
   */
  userSuspended(userId: number, suspended: boolean): Promise<void>;
  /** Sends what the user typed in a conversation (see IrcManager.send). */
  send(
    userId: number,
    connectionId: string,
    conversationId: string,
    message: string,
    opts?: SendOptions,
  ): Promise<CommandResult>;
  /** The state of a connection this node runs ("disconnected" when it runs none). */
  state(connectionRowId: number): string;
  /** Why this node cannot take its share of IRC now (`GET /readyz`); undefined when it can. */
  notReady?(): string | undefined;
  /** This node's connections counted (`GET /metrics`). */
  stats?(): IrcStats;
}
