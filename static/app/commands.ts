/**
 * Parses what the user typed into the composer: a message, a server command or an error. The
 * commands come from the one table the server also runs them by (protocol/command_table.ts).
 */
import {
  type ClientCommandName,
  commandsFor,
  type CommandSpec,
  findCommand,
} from "../../protocol/command_table.ts";

/** What to do with a line typed in the composer. */
export type Parsed =
  | { kind: "empty" }
  | { kind: "send"; message: string; command?: string }
  | { kind: "client"; command: ClientCommandName; args: string }
  | { kind: "unknown"; command: string };

/** Decides how to handle `input`; `//text` sends `/text` as text (the server unescapes it). */
export function parseInput(input: string): Parsed {
  const text = input.replace(/\s+$/, "");
  if (!text.trim()) return { kind: "empty" };
  if (!text.startsWith("/") || text.startsWith("//")) return { kind: "send", message: text };
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text)!;
  const typed = m[1].toLowerCase();
  const spec = findCommand(typed);
  if (!spec) return { kind: "unknown", command: typed };
  if (spec.runs === "client") {
    return { kind: "client", command: spec.name as ClientCommandName, args: m[2] };
  }
  // Sent lower-cased so "/ME waves" works as well; `command` is the name, never an alias.
  return { kind: "send", message: `/${typed}${m[2] ? " " + m[2] : ""}`, command: spec.name };
}

/** What the client's own commands may do. */
interface ClientEnv {
  navigate(path: string): void;
  showHelp(): void;
  /** The list of keyboard shortcuts. */
  showKeys(): void;
  /** Runs a BouncerServ command and shows its answers in the open conversation. */
  bouncerServ(command: string): void;
}

/** The handler of every command the client runs itself, keyed by the table. */
export const CLIENT_HANDLERS: Readonly<
  Record<ClientCommandName, (args: string, env: ClientEnv) => void>
> = {
  search: (args, env) => env.navigate("/chat/search?q=" + encodeURIComponent(args)),
  bouncerserv: (args, env) => env.bouncerServ(args.trim() || "help"),
  // "/help keys" lists the keyboard shortcuts; "/help" the commands.
  help: (args, env) => (args.trim().toLowerCase() === "keys" ? env.showKeys() : env.showHelp()),
};

/** The names and aliases a user with `roles` may complete to, sorted; admin commands only for
 * admins. */
export function completableCommands(
  roles: readonly string[],
  table?: readonly CommandSpec[],
): string[] {
  return commandsFor(roles, table).flatMap((c) => [c.name, ...c.aliases]).sort();
}
