/**
 * Where each line a server sends goes once it is handled: in the server's order, after the
 * line's handlers ran in the connection's serial queue, with what they made of it. The bouncer's
 * relay is the outlet (bouncer/relay.ts): it passes the line to every attached client, a stored
 * line with the msgid and time of its row. The manager is given it when the listener starts.
 */
import type { IrcLine, IrcMessage as Message } from "../protocol/message.ts";
import type { IrcConnection } from "./connection.ts";

/** What handling a line made of it. */
export type Produced =
  /** Stored (a chat line) or kept (a channel event) as one row: its msgid and time (µs). */
  | { kind: "stored"; msgid: string; ts: number }
  /** Kept as rows of several conversations (a QUIT, a NICK): no one row is the line's. */
  | { kind: "spread" }
  /** An ignored person's line: shown to no one. */
  | { kind: "ignored" }
  /** A line Parley does not store after all (past the conversation limit). */
  | { kind: "unstored" }
  /** The answer to a question of Parley's own (its nick regain): shown to no one. */
  | { kind: "own" }
  /** A line of the server's history that Parley asked for: stored, not news for IRC clients. */
  | { kind: "history" };

/** One line on its way: the handlers fill `produced`. */
export interface LineOut {
  message: Message;
  produced?: Produced;
  /**
   * The server's answer to a command, not shown to the web yet because IRC clients are attached
   * (a refusal, a standard reply, a numeric nothing else takes): shows it. The outlet calls it
   * unless the line answered one of their commands, which is theirs alone (the web client's own
   * raw lines are told by `asked`).
   */
  show?: () => void;
}

export interface Outlet {
  /**
   * Given when the outlet is set: the live connection of a stored one (by its row id), so the
   * outlet keeps nothing per connection before it needs it.
   */
  bind?(live: (connectionRowId: number) => IrcConnection | undefined): void;
  /** One line of `conn`'s server, in order, after its handlers ran. */
  line(conn: IrcConnection, out: LineOut): void;
  /**
   * A PRIVMSG or NOTICE of `conn` was written to its server (by anyone: the web client, an
   * attached client, Parley itself), in the socket's order; `origin` is its sender's token.
   */
  wrote?(conn: IrcConnection, target: string, origin: string | undefined): void;
  /**
   * A raw line of the web client's (`/quote`, an on-connect command) was just written to `conn`'s
   * server, in the socket's order: the server's answers to it are the web client's, no IRC
   * client's. A line it returns (a PING fencing the answer) is written right after it.
   */
  asked?(conn: IrcConnection, line: string): IrcLine | undefined;
  /** Whether an IRC client is attached to `conn` now (it answers CTCP requests itself). */
  attached?(conn: IrcConnection): boolean;
  /** The connection is stopped for good (removed, its user deleted, or moved away). */
  gone(conn: IrcConnection): void;
}
