/**
 * The one list of slash commands: name, aliases, usage, a one-line description and who may use
 * it where. Pure data with no imports, so the server (irc/chat/commands.ts keys its handlers by it)
 * and the web client (completion, /help, "unknown command") read the same list. Adding a command
 * is one entry here, its handler, and its description in every dictionary of i18n/.
 */

/** Who may run a command. */
type Who = "everyone" | "admin";

/** Where it may be typed: anywhere, in a conversation (not the server's), or in a channel. */
type Where = "anywhere" | "conversation" | "channel";

/** One slash command, as the user sees it. */
export interface CommandSpec {
  /** The name typed after "/", lower case. */
  name: string;
  /** Other names for the same command. */
  aliases: readonly string[];
  /** How to type it, e.g. "/join <#channel> [key]". */
  usage: string;
  /** What it does, one line of English; also its key in the i18n dictionaries. */
  description: string;
  who: Who;
  where: Where;
  /** "server" commands are sent over the socket; "client" ones the web client runs itself. */
  runs: "server" | "client";
}

/** One entry, with the usual defaults: anyone, anywhere, run by the server. */
function entry<N extends string, R extends "server" | "client" = "server">(
  name: N,
  usage: string,
  description: string,
  more: Partial<Pick<CommandSpec, "aliases" | "who" | "where">> & { runs?: R } = {},
): CommandSpec & { name: N; runs: R } {
  return {
    name,
    usage,
    description,
    aliases: more.aliases ?? [],
    who: more.who ?? "everyone",
    where: more.where ?? "anywhere",
    runs: more.runs ?? "server" as R,
  };
}

/**
 * Every slash command, in the order /help lists them.
 *
 * @internal test seam
 */
export const COMMAND_TABLE = [
  entry("say", "/say <text>", "Sends text as a message, even text that starts with /", {
    where: "conversation",
  }),
  entry("me", "/me <text>", "Describes an action: * you waves", { where: "conversation" }),
  entry("shrug", "/shrug [text]", "Says text with a shrug: ¯\\_(ツ)_/¯", { where: "conversation" }),
  entry("msg", "/msg <nick|#channel> <text>", "Sends a private message"),
  entry("notice", "/notice <nick|#channel> <text>", "Sends a notice"),
  entry("query", "/query <nick>", "Opens a private conversation"),
  entry("join", "/join <#channel> [key]", "Joins a channel", { aliases: ["j"] }),
  entry("part", "/part [#channel] [reason]", "Leaves a channel or closes a private conversation"),
  entry("cycle", "/cycle [#channel] [reason]", "Leaves a channel and joins it again", {
    aliases: ["rejoin"],
  }),
  entry("close", "/close [#channel|nick]", "Leaves and removes a conversation, on every device"),
  entry("nick", "/nick <nick>", "Changes your nick"),
  entry("topic", "/topic [text]", "Sets or shows the topic of this channel", {
    where: "channel",
  }),
  entry("whois", "/whois <nick>", "Shows who someone is"),
  entry("kick", "/kick <nick> [reason]", "Removes someone from this channel", {
    where: "channel",
  }),
  entry("mode", "/mode [args]", "Sets or shows modes (e.g. +o nick)"),
  entry("op", "/op <nick> [nick...]", "Makes people operators of this channel", {
    where: "channel",
  }),
  entry("deop", "/deop <nick> [nick...]", "Takes operator status away", { where: "channel" }),
  entry("voice", "/voice <nick> [nick...]", "Lets people speak in a moderated channel", {
    where: "channel",
  }),
  entry("devoice", "/devoice <nick> [nick...]", "Takes the voice away", { where: "channel" }),
  entry("ban", "/ban <nick|mask> [...]", "Bans people from this channel", { where: "channel" }),
  entry("unban", "/unban <nick|mask> [...]", "Lifts bans in this channel", { where: "channel" }),
  entry("kickban", "/kickban <nick> [reason]", "Bans someone from this channel and removes them", {
    where: "channel",
  }),
  entry("invite", "/invite <nick> [#channel]", "Invites someone to a channel"),
  entry("ignore", "/ignore [nick|mask]", "Hides someone's messages everywhere; lists who without"),
  entry("unignore", "/unignore <nick|mask>", "Shows someone's messages again"),
  entry("away", "/away [message]", "Marks you as away, or back without a message"),
  entry("back", "/back", "Marks you as back"),
  entry("list", "/list [/text/] [refresh] [mask]", "Lists the channels of the server"),
  entry("names", "/names [#channel]", "Shows the members of a channel"),
  entry("ison", "/ison <nick>", "Tells whether someone is on IRC"),
  entry("ctcp", "/ctcp <nick> <request> [text]", "Asks someone's IRC client, e.g. VERSION or PING"),
  entry("oper", "/oper <name> <password>", "Logs in as an IRC operator"),
  entry("ns", "/ns <command>", "Sends a command to NickServ"),
  entry("cs", "/cs <command>", "Sends a command to ChanServ"),
  entry("ms", "/ms <command>", "Sends a command to MemoServ"),
  entry("hs", "/hs <command>", "Sends a command to HostServ"),
  entry("bs", "/bs <command>", "Sends a command to BotServ"),
  entry("os", "/os <command>", "Sends a command to OperServ"),
  entry("quote", "/quote <raw line>", "Sends a raw IRC line", { aliases: ["raw"] }),
  entry("connect", "/connect", "Connects this connection"),
  entry("disconnect", "/disconnect", "Disconnects this connection"),
  entry("reconnect", "/reconnect", "Reconnects this connection"),
  entry("clear", "/clear history", "Deletes the stored messages of this conversation"),
  entry("search", "/search <words>", "Searches your messages", { runs: "client" as const }),
  entry("bouncerserv", "/bouncerserv <command>", "Runs a BouncerServ command (help lists them)", {
    runs: "client" as const,
  }),
  entry("help", "/help", "Shows this list", { runs: "client" as const }),
];

/** The name of a command the server runs. */
export type ServerCommandName = Extract<(typeof COMMAND_TABLE)[number], { runs: "server" }>["name"];
/** The name of a command the web client runs itself. */
export type ClientCommandName = Extract<(typeof COMMAND_TABLE)[number], { runs: "client" }>["name"];

/** The command that `typed` (a name or an alias, any case) names; undefined when none does. */
export function findCommand(
  typed: string,
  table: readonly CommandSpec[] = COMMAND_TABLE,
): CommandSpec | undefined {
  const name = typed.toLowerCase();
  return table.find((c) => c.name === name || c.aliases.includes(name));
}

/** Whether a user with `roles` may run `spec`. */
export function mayUse(spec: CommandSpec, roles: readonly string[]): boolean {
  return spec.who === "everyone" || roles.includes(spec.who);
}

/** The commands a user with `roles` may run, for completion and /help. */
export function commandsFor(
  roles: readonly string[],
  table: readonly CommandSpec[] = COMMAND_TABLE,
): CommandSpec[] {
  return table.filter((c) => mayUse(c, roles));
}
