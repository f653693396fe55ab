/**
 * Answers to what Parley itself asked the server (`/topic`, `/mode`, `/names`, `/list`, `/whois`,
 * `/invite`, a ban list, a PING): told at once, as each line is read, to whoever waits for one
 * (irc/chat/commands.ts, `IrcConnection.whois`). They are told as the client's typed events
 * (engine/events.ts, `IrcEvents`), and in the server's order: a query's answer is always told
 * before the PONG that follows it, which is how a wait knows that no answer is coming.
 */
import type { IrcEventName, IrcEvents, WhoisReply } from "../../engine/events.ts";
import { type IrcMessage as Message, sourceOf } from "../../protocol/message.ts";
import {
  ERR_BADCHANNELKEY,
  ERR_BANNEDFROMCHAN,
  ERR_CANNOTSENDTOCHAN,
  ERR_CANNOTSENDTOUSER,
  ERR_CHANNELISFULL,
  ERR_CHANOPRIVSNEEDED,
  ERR_ERRONEUSNICKNAME,
  ERR_INVITEONLYCHAN,
  ERR_MONLISTFULL,
  ERR_NICKNAMEINUSE,
  ERR_NOCHANMODES,
  ERR_NOSUCHNICK,
  ERR_NOSUCHSERVER,
  ERR_NOTONCHANNEL,
  ERR_PASSWDMISMATCH,
  ERR_SECUREONLYCHAN,
  ERR_TOOMANYCHANNELS,
  ERR_UNKNOWNCOMMAND,
  ERR_USERNOTINCHANNEL,
  ERR_USERONCHANNEL,
  ERR_YOUREBANNEDCREEP,
  RPL_AWAY,
  RPL_BANLIST,
  RPL_CHANNELMODEIS,
  RPL_ENDOFBANLIST,
  RPL_ENDOFNAMES,
  RPL_ENDOFWHO,
  RPL_ENDOFWHOIS,
  RPL_INVITING,
  RPL_ISON,
  RPL_LIST,
  RPL_LISTEND,
  RPL_NAMREPLY,
  RPL_NOTOPIC,
  RPL_TOPIC,
  RPL_TOPICWHOTIME,
  RPL_WHOISACCOUNT,
  RPL_WHOISACTUALLY,
  RPL_WHOISBOT,
  RPL_WHOISCERTFP,
  RPL_WHOISCHANNELS,
  RPL_WHOISHOST,
  RPL_WHOISIDLE,
  RPL_WHOISMODES,
  RPL_WHOISOPERATOR,
  RPL_WHOISREGNICK,
  RPL_WHOISSECURE,
  RPL_WHOISSERVER,
  RPL_WHOISSPECIAL,
  RPL_WHOISUSER,
  RPL_WHOREPLY,
} from "../../protocol/numerics.ts";
import type { Gathered } from "./replies.ts";
import { ctcpParts } from "../../protocol/ctcp.ts";

/** The last parameter (a reply's text). */
export const last = (m: Message): string => m.params[m.params.length - 1] ?? "";

/**
 * The server's refusals, by numeric: the error's name, and which parameter names the nick or
 * the channel it concerns. The names are those Convos's API reports.
 */
export const ERRORS: Readonly<
  Record<string, { error: string; nick?: number; channel?: number; reason?: false }>
> = {
  [ERR_PASSWDMISMATCH]: { error: "password_mismatch" },
  [ERR_NOSUCHNICK]: { error: "no_such_nick", nick: 1 },
  [ERR_NOSUCHSERVER]: { error: "no_such_server" },
  [ERR_CANNOTSENDTOCHAN]: { error: "cannot_send_to_channel", channel: 1 },
  [ERR_CANNOTSENDTOUSER]: { error: "cannot_send_to_user", nick: 1 },
  [ERR_TOOMANYCHANNELS]: { error: "too_many_channels", channel: 1 },
  [ERR_USERNOTINCHANNEL]: { error: "user_not_in_channel", nick: 0, channel: 1 },
  [ERR_NOTONCHANNEL]: { error: "not_on_channel", channel: 1 },
  [ERR_USERONCHANNEL]: { error: "user_on_channel", nick: 1, channel: 2, reason: false },
  [ERR_CHANNELISFULL]: { error: "channel_is_full", channel: 1 },
  [ERR_INVITEONLYCHAN]: { error: "invite_only_channel", channel: 1 },
  [ERR_BANNEDFROMCHAN]: { error: "banned_from_channel", channel: 1 },
  [ERR_BADCHANNELKEY]: { error: "bad_channel_key", channel: 1 },
  [ERR_NOCHANMODES]: { error: "need_registered_nick", channel: 1 },
  [ERR_SECUREONLYCHAN]: { error: "secure_only_channel", channel: 1 },
  [ERR_CHANOPRIVSNEEDED]: { error: "chanop_privs_needed", channel: 1 },
  [ERR_UNKNOWNCOMMAND]: { error: "unknown_command" },
  // A /nick refused once registered (during registration the engine picks another nick): said
  // in the server conversation, where the command was answered, not in one with that nick.
  [ERR_NICKNAMEINUSE]: { error: "nickname_in_use" },
  [ERR_ERRONEUSNICKNAME]: { error: "erroneous_nickname" },
  [ERR_YOUREBANNEDCREEP]: { error: "banned_from_network" },
  [ERR_MONLISTFULL]: { error: "monitor_list_full" },
  ERROR: { error: "irc" },
};

/** A refusal as an `irc error` event: its name, whom it concerns, the server's words. */
export function ircError(m: Message): IrcEvents["irc error"] | undefined {
  const spec = ERRORS[m.command];
  if (!spec) return undefined;
  const at = (i: number | undefined) => (i === undefined ? undefined : m.params[i]);
  const ev: IrcEvents["irc error"] = { error: spec.error };
  if (spec.nick !== undefined) ev.nick = at(spec.nick);
  if (spec.channel !== undefined) ev.channel = at(spec.channel);
  if (spec.reason !== false) ev.reason = last(m);
  return ev;
}

/** A member as a NAMES line lists it: its prefix signs made modes; a mask when the server gives one. */
export function namesOf(lines: Message[], prefix: { mode: string; symbol: string }[]) {
  const users: { nick: string; ident: string; hostname: string; modes: string[] }[] = [];
  for (const line of lines) {
    if (line.command !== RPL_NAMREPLY) continue;
    for (let member of last(line).split(" ")) {
      if (!member) continue;
      const modes: string[] = [];
      for (const p of prefix) {
        if (member[0] === p.symbol) {
          modes.push(p.mode);
          member = member.slice(1);
        }
      }
      const { nick, user, host } = sourceOf(member);
      users.push({ nick: nick || member, ident: user, hostname: host, modes });
    }
  }
  return users;
}

/** Who a WHO reply lists, each with whether they are away (`G` in the flags). */
export function whoOf(lines: Message[]): { nick: string; away: boolean }[] {
  return lines.filter((l) => l.command === RPL_WHOREPLY && l.params.length >= 7)
    .map((l) => ({ nick: l.params[5], away: l.params[6].includes("G") }));
}

/** A WHOIS answer, field by field, as Convos's API gives it. */
function whoisOf(nick: string, lines: Message[]): WhoisReply {
  const w: WhoisReply = {};
  for (const l of lines) {
    const p = l.params;
    switch (l.command) {
      case RPL_WHOISUSER:
        Object.assign(w, { nick: p[1], ident: p[2], hostname: p[3], real_name: last(l) });
        break;
      case RPL_WHOISSERVER:
        Object.assign(w, { server: p[2], server_info: last(l) });
        break;
      case RPL_WHOISOPERATOR:
        w.operator = last(l);
        break;
      case RPL_WHOISIDLE:
        w.idle = p[2];
        if (p.length > 4) w.logon = p[3];
        break;
      case RPL_WHOISCHANNELS:
        w.channels = w.channels ? `${w.channels} ${last(l)}` : last(l);
        break;
      case RPL_WHOISACCOUNT:
        w.account = p[2];
        break;
      case RPL_WHOISSECURE:
        w.secure = true;
        break;
      case RPL_AWAY:
        w.away = last(l) || "is away";
        break;
      case RPL_WHOISCERTFP:
        w.certfp ??= last(l);
        break;
      case RPL_WHOISMODES:
        w.modes = last(l);
        break;
      case RPL_WHOISREGNICK:
        w.registered_nick = last(l);
        break;
      case RPL_WHOISBOT:
        w.bot = last(l);
        break;
      case RPL_WHOISSPECIAL:
        w.special = [...(w.special as string[] ?? []), last(l)];
        break;
      case RPL_WHOISHOST: {
        // `is connecting from user@host ip`
        const match = /@(\S+) (\S+)/.exec(last(l));
        if (match) Object.assign(w, { actual_hostname: match[1], actual_ip: match[2] });
        break;
      }
      case RPL_WHOISACTUALLY: {
        // `nick [user@]host ip :Actual user@host, Actual IP`
        const [mask = "", ip] = p.slice(-3, -1);
        const host = mask.slice(mask.indexOf("@") + 1);
        if (ip && host) Object.assign(w, { actual_ip: ip, actual_hostname: host });
        break;
      }
    }
  }
  if (!w.nick) Object.assign(w, { nick, error: "not_found" });
  return w;
}

/** Most channels told in one `channel list` event (the rest follow in the next). */
const LIST_CHUNK = 50;

/** What one connection's answers keep between lines: a LIST's channels not told yet. */
export interface AnswerState {
  list: IrcEvents["channel list"];
}

/** The typed events a line answers with, in order (none for most lines). */
export function answersOf(
  m: Message,
  got: Gathered | undefined,
  state: AnswerState,
  prefix: () => { mode: string; symbol: string }[],
): [IrcEventName, unknown][] {
  const p = m.params;
  switch (m.command) {
    case "PONG":
      return [["pong", { message: p[1] }]];
    case "NOTICE": {
      // Someone's client answering a CTCP request (`/ctcp`); a plain notice answers nothing.
      const ctcp = p.length === 2 ? ctcpParts(p[1]) : undefined;
      const nick = sourceOf(m.prefix).nick;
      return ctcp && nick ? [["ctcp reply", { nick, type: ctcp.type, text: ctcp.arg }]] : [];
    }
    case "TOPIC":
      return [["topic", { nick: sourceOf(m.prefix).nick, channel: p[0], topic: last(m) }]];
    case RPL_TOPIC:
      return [["topic", { channel: p[1], topic: last(m) }]];
    case RPL_NOTOPIC:
      return [["topic", { channel: p[1], topic: "" }]];
    case RPL_TOPICWHOTIME:
      return [["topicsetby", { nick: sourceOf(p[2] ?? "").nick, channel: p[1], when: p[3] }]];
    case RPL_CHANNELMODEIS:
      return [["channel info", { channel: p[1], raw_modes: p[2], raw_params: p.slice(3) }]];
    case RPL_INVITING:
      return [["invited", { nick: p[1], channel: p[2] }]];
    case RPL_ISON:
      return [["ison", { nicks: last(m).split(" ").filter(Boolean).slice(0, 1000) }]];
    case RPL_LIST: {
      state.list.push({ channel: p[1], num_users: parseInt(p[2], 10), topic: p[3] ?? "" });
      if (state.list.length < LIST_CHUNK) return [];
      const list = state.list;
      state.list = [];
      return [["channel list", list]];
    }
    case RPL_LISTEND: {
      const list = state.list;
      state.list = [];
      return [
        ...(list.length ? [["channel list", list] as [IrcEventName, unknown]] : []),
        ["channel list end", undefined],
      ];
    }
    case RPL_ENDOFNAMES:
      return [["userlist", { channel: p[1], users: namesOf(got?.lines ?? [], prefix()) }]];
    case RPL_ENDOFWHO:
      return [["wholist", { target: p[1], users: whoOf(got?.lines ?? []) }]];
    case RPL_ENDOFWHOIS:
      return [["whois", whoisOf(p[1] ?? "", got?.lines ?? [])]];
    case RPL_ENDOFBANLIST: {
      const bans = (got?.lines ?? []).filter((l) => l.command === RPL_BANLIST)
        .map((l) => ({ channel: l.params[1], banned: l.params[2] }));
      return [["banlist", { channel: p[1], bans }]];
    }
  }
  const error = ircError(m);
  return error ? [["irc error", error]] : [];
}
