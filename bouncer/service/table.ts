/**
 * BouncerServ's commands: each group (network, sasl, certfp, channel, user, server) is a module
 * with its entries; this module runs a line through them. A command is found by its words, each
 * of which may be shortened while it stays unambiguous (`net st` is `network status`), and answers
 * with lines of text; an error answers with its message and what to type.
 */
import type { ConnectionService } from "../../irc/connection_service.ts";
import type { IrcControl } from "../../irc/control.ts";
import type { EventBus } from "../../lib/bus.ts";
import { DomainError } from "../../lib/errors.ts";
import { log } from "../../lib/log.ts";
import type { Store } from "../../store/mod.ts";
import type { UserRecord } from "../../store/users.ts";
import type { Revocations } from "../credentials.ts";
import { UsageError, words } from "./args.ts";
import { t } from "./words.ts";

export { UsageError };

/** What the commands reach: the same services the API's routes call. */
export interface ServiceDeps {
  store: Store;
  connections: ConnectionService;
  bus: EventBus;
  revocations?: Revocations;
  /** What runs before a user is deleted (the routes' hooks: IRC connections, files, push). */
  userDeleted?: ((userId: number) => Promise<void>)[];
  /** Stops and starts a suspended user's IRC connections (on whichever node runs them). */
  irc: Pick<IrcControl, "userSuspended">;
}

/** One call of the service. */
export interface ServiceCall {
  deps: ServiceDeps;
  /** The caller, as stored now. */
  user: UserRecord;
  /** The connection_id the caller's client is bound to ("" when none): `-network`'s default. */
  network: string;
  /** The SHA-256 fingerprint of the TLS client certificate the caller's IRC client presented. */
  certificate?: string;
  /**
   * The caller gave the account's password: its IRC client logged in with it (not an app token
   * or a certificate), or its web session was opened with it in the last minutes. Only then may
   * it add a way in that outlives a password change (`certfp add`, its own new password).
   */
  passwordGiven?: boolean;
}

/** One command. */
interface ServiceCommand {
  /** Its words, e.g. "network create". */
  name: string;
  /** Its parameters, as `help` shows them (an English text of the dictionary, or ""). */
  usage: string;
  /** One line of English (a text of the dictionary). */
  description: string;
  /** Only admins may run it. */
  admin?: boolean;
  run(call: ServiceCall, args: string[]): Promise<string[]>;
}

/**
 * Runs a change the connection service stores and then connects: a failed connect (an `upstream`
 * error) comes after the change was saved, and is said as such.
 */
export async function saved(change: () => Promise<unknown>, done: string): Promise<string[]> {
  try {
    await change();
  } catch (err) {
    if (err instanceof DomainError && err.kind === "upstream") {
      return [t("Saved, but connecting failed: {why}", { why: err.message })];
    }
    throw err;
  }
  return [done];
}

/**
 * The commands; filled by the groups' modules (mod.ts imports them all).
 *
 * @internal test seam
 */
export const SERVICE_COMMANDS: ServiceCommand[] = [];

/** Adds a group's commands. */
export function register(...commands: ServiceCommand[]): void {
  SERVICE_COMMANDS.push(...commands);
}

/**
 * The command the first words name (each may be a unique prefix), and the words after it.
 *
 * @internal test seam
 */
export function findCommand(
  typed: string[],
): { command: ServiceCommand; rest: string[] } | { ambiguous: string[]; word: string } | undefined {
  let candidates = SERVICE_COMMANDS.map((c) => ({ c, parts: c.name.split(" ") }));
  for (let depth = 0; depth < typed.length; depth++) {
    const word = typed[depth].toLowerCase();
    const at = candidates.filter((x) => x.parts.length > depth);
    const exact = at.filter((x) => x.parts[depth] === word);
    const matching = exact.length ? exact : at.filter((x) => x.parts[depth].startsWith(word));
    const names = new Set(matching.map((x) => x.parts[depth]));
    if (!matching.length) return undefined;
    if (names.size > 1) return { ambiguous: [...names].sort(), word: typed[depth] };
    candidates = matching;
    const done = candidates.find((x) => x.parts.length === depth + 1);
    if (done) return { command: done.c, rest: typed.slice(depth + 1) };
  }
  return undefined;
}

/** The usage line of a command, as help and errors show it. */
function usageOf(c: ServiceCommand): string {
  return c.usage ? `${c.name} ${t(c.usage)}` : c.name;
}

/** Runs one line; answers with the lines to show. */
export async function runService(call: ServiceCall, line: string): Promise<string[]> {
  let typed: string[];
  try {
    typed = words(line);
  } catch (err) {
    return [(err as Error).message];
  }
  if (!typed.length) return [t('Type "help" for the list of commands.')];
  const found = findCommand(typed);
  if (!found) {
    return [t('Unknown command "{command}". Type "help" for the list of commands.', {
      command: typed.slice(0, 2).join(" ").slice(0, 64),
    })];
  }
  if ("ambiguous" in found) {
    return [t('"{word}" could be any of: {list}.', {
      word: found.word.slice(0, 32),
      list: found.ambiguous.join(", "),
    })];
  }
  const { command, rest } = found;
  if (command.admin && !call.user.roles.includes("admin")) {
    return [t("Only admins can do this.")];
  }
  try {
    return await command.run(call, rest);
  } catch (err) {
    if (err instanceof UsageError) {
      return [
        err.message,
        t('Usage: {usage} (type "help {command}")', {
          usage: usageOf(command),
          command: command.name,
        }),
      ];
    }
    if (err instanceof DomainError) return [err.message];
    log.warn("bouncerserv command failed", { command: command.name, error: err });
    return [t("The command could not be run.")];
  }
}

/** `help [command]`: every command the caller may run, or one with its parameters. */
register({
  name: "help",
  usage: "[command]",
  description: "Shows the commands, or how to use one",
  run: (call, args) => {
    const mine = SERVICE_COMMANDS.filter((c) => !c.admin || call.user.roles.includes("admin"));
    if (args.length) {
      const prefix = args.map((a) => a.toLowerCase()).join(" ");
      const found = findCommand(args);
      const list = found && "command" in found && !found.rest.length
        ? [found.command]
        : mine.filter((c) => c.name.startsWith(prefix + " ") || c.name === prefix);
      if (!list.length) {
        return Promise.resolve([
          t('Unknown command "{command}". Type "help" for the list of commands.', {
            command: prefix.slice(0, 64),
          }),
        ]);
      }
      return Promise.resolve(list.map((c) => `${usageOf(c)}: ${t(c.description)}`));
    }
    return Promise.resolve([
      t('Commands (words may be shortened, e.g. "net st"):'),
      ...mine.map((c) => `${usageOf(c)}: ${t(c.description)}`),
    ]);
  },
});
