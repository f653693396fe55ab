/** The one writer of outgoing lines now lives in irc/protocol/message.ts; this re-exports it. */
export { type IrcLine, ircLine, LineError, quotedLine } from "../protocol/message.ts";
