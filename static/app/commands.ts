/** Parses what the user typed into the composer: a message, a server command or an error. */

/** The commands the server understands (docs/events.md), sent as typed through the socket. */
export const SERVER_COMMANDS = [
  "me",
  "msg",
  "notice",
  "query",
  "join",
  "part",
  "close",
  "nick",
  "topic",
  "whois",
  "kick",
  "mode",
  "invite",
  "away",
  "list",
  "names",
  "quote",
  "raw",
  "connect",
  "disconnect",
  "reconnect",
  "clear",
] as const;

/** Commands the client handles itself. */
export const CLIENT_COMMANDS = ["help", "search"] as const;

/** Every command, for completion. */
export const ALL_COMMANDS = [...SERVER_COMMANDS, ...CLIENT_COMMANDS].sort();

/** What to do with a line typed in the composer. */
export type Parsed =
  | { kind: "empty" }
  | { kind: "send"; message: string; command?: string }
  | { kind: "client"; command: "help" | "search"; args: string }
  | { kind: "unknown"; command: string };

/** Decides how to handle `input`; `//text` sends `/text` as text (the server unescapes it). */
export function parseInput(input: string): Parsed {
  const text = input.replace(/\s+$/, "");
  if (!text.trim()) return { kind: "empty" };
  if (!text.startsWith("/") || text.startsWith("//")) return { kind: "send", message: text };
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text)!;
  const command = m[1].toLowerCase();
  if ((CLIENT_COMMANDS as readonly string[]).includes(command)) {
    return { kind: "client", command: command as "help" | "search", args: m[2] };
  }
  if ((SERVER_COMMANDS as readonly string[]).includes(command)) {
    // Send the command lower-cased so "/ME waves" works as well.
    return { kind: "send", message: `/${command}${m[2] ? " " + m[2] : ""}`, command };
  }
  return { kind: "unknown", command };
}
