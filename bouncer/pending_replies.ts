/**
 * Where the server's replies to a client's own commands go: one queue per connection of what each
 * client asked (the command, its names, the numerics that answer it and those that end it),
 * matched in order. A reply goes to the first entry that takes it; one no entry takes is not a
 * client's and the caller sends it to everyone. An entry never blocks the ones behind it (a reply
 * it does not take goes on down the queue), and one whose answer never comes times out, so one
 * unanswered question cannot send everyone's answers to one client.
 */
import { ircLower } from "../lib/casefold.ts";
import type { IrcMessage as Message } from "../irc/protocol/message.ts";
import * as N from "../irc/protocol/numerics.ts";
import { WHOIS_LINES } from "../irc/protocol/whois.ts";

/** What answers one command. */
interface ReplySpec {
  /** Numerics that answer it without ending it. */
  replies: ReadonlySet<string>;
  /** Numerics that end it. */
  ends: ReadonlySet<string>;
  /** Numerics that may come right after its end and still belong to it (329 after 324). */
  trail?: ReadonlySet<string>;
  /** Errors that answer it and are still followed by its end (WHOIS: 401, then 318). */
  errorsBeforeEnd?: ReadonlySet<string>;
  /** How many of its ends end it (`NAMES #a,#b` has one 366 per channel). */
  endsNeeded?: number;
  /** More numerics whose parameter at this place must be a name it gave (352 of `WHO #chan`). */
  subjectAt?: Readonly<Record<string, number>>;
  /** It named nothing (`NAMES`, `WHO`): the server's answer names what it chose. */
  anySubject?: boolean;
  /** An answer always comes (a query): a label waits for it. Else the command may get none. */
  answered: boolean;
}

const set = (codes: readonly string[]): ReadonlySet<string> => new Set(codes);

/**
 * Errors that end whatever command they name: the name or command in their first parameter
 * after the nick must be one the command gave.
 */
const ERROR_ENDS = set([
  N.RPL_TRYAGAIN,
  N.ERR_NOSUCHNICK,
  N.ERR_NOSUCHSERVER,
  N.ERR_NOSUCHCHANNEL,
  N.ERR_CANNOTSENDTOCHAN,
  N.ERR_TOOMANYCHANNELS,
  N.ERR_WASNOSUCHNICK,
  N.ERR_NORECIPIENT,
  N.ERR_NOTEXTTOSEND,
  N.ERR_TOOMANYMATCHES,
  N.ERR_UNKNOWNCOMMAND,
  N.ERR_ERRONEUSNICKNAME,
  N.ERR_USERNOTINCHANNEL,
  N.ERR_NOTONCHANNEL,
  N.ERR_USERONCHANNEL,
  N.ERR_NEEDMOREPARAMS,
  N.ERR_KEYSET,
  N.ERR_CHANNELISFULL,
  N.ERR_INVITEONLYCHAN,
  N.ERR_BANNEDFROMCHAN,
  N.ERR_BADCHANNELKEY,
  N.ERR_BADCHANMASK,
  N.ERR_NOCHANMODES,
  N.ERR_SECUREONLYCHAN,
  N.ERR_BANLISTFULL,
  N.ERR_BADCHANNAME,
  N.ERR_CANNOTKNOCK,
  N.ERR_CHANOPRIVSNEEDED,
  N.ERR_UMODEUNKNOWNFLAG,
  N.ERR_USERSDONTMATCH,
  N.ERR_HELPNOTFOUND,
]);

/** Numerics whose parameter at this place names what was asked (a nick, channel, command). */
const SUBJECT_AT: Record<string, number> = Object.fromEntries([
  ...[
    N.RPL_TRYAGAIN,
    N.RPL_AWAY,
    N.RPL_WHOISREGNICK,
    N.RPL_WHOISUSER,
    N.RPL_WHOISSERVER,
    N.RPL_WHOISOPERATOR,
    N.RPL_WHOWASUSER,
    N.RPL_ENDOFWHO,
    N.RPL_WHOISIDLE,
    N.RPL_ENDOFWHOIS,
    N.RPL_WHOISCHANNELS,
    N.RPL_WHOISSPECIAL,
    N.RPL_CHANNELMODEIS,
    N.RPL_CREATIONTIME,
    N.RPL_WHOISACCOUNT,
    N.RPL_NOTOPIC,
    N.RPL_TOPIC,
    N.RPL_TOPICWHOTIME,
    N.RPL_WHOISACTUALLY,
    N.RPL_INVITING,
    N.RPL_INVITELIST,
    N.RPL_ENDOFINVITELIST,
    N.RPL_EXCEPTLIST,
    N.RPL_ENDOFEXCEPTLIST,
    N.RPL_ENDOFNAMES,
    N.RPL_BANLIST,
    N.RPL_ENDOFBANLIST,
    N.RPL_ENDOFWHOWAS,
    N.RPL_WHOISHOST,
    N.RPL_WHOISMODES,
    N.RPL_WHOISSECURE,
    N.RPL_WHOISCERTFP,
    N.RPL_WHOISBOT,
    N.ERR_NICKNAMEINUSE,
    N.ERR_NICKCOLLISION,
    N.ERR_NOSUCHNICK,
    N.ERR_NOSUCHSERVER,
    N.ERR_NOSUCHCHANNEL,
    N.ERR_CANNOTSENDTOCHAN,
    N.ERR_TOOMANYCHANNELS,
    N.ERR_WASNOSUCHNICK,
    N.ERR_UNKNOWNCOMMAND,
    N.ERR_USERNOTINCHANNEL,
    N.ERR_NOTONCHANNEL,
    N.ERR_USERONCHANNEL,
    N.ERR_NEEDMOREPARAMS,
    N.ERR_KEYSET,
    N.ERR_CHANNELISFULL,
    N.ERR_INVITEONLYCHAN,
    N.ERR_BANNEDFROMCHAN,
    N.ERR_BADCHANNELKEY,
    N.ERR_BADCHANMASK,
    N.ERR_NOCHANMODES,
    N.ERR_SECUREONLYCHAN,
    N.ERR_BANLISTFULL,
    N.ERR_BADCHANNAME,
    N.ERR_CHANOPRIVSNEEDED,
    N.ERR_HELPNOTFOUND,
    N.RPL_HELPSTART,
    N.RPL_HELPTXT,
    N.RPL_ENDOFHELP,
    N.RPL_KNOCK,
    N.RPL_KNOCKDLVR,
    N.ERR_TOOMANYKNOCK,
    N.ERR_CHANOPEN,
    N.ERR_KNOCKONCHAN,
  ].map((c) => [c, 1]),
  [N.RPL_NAMREPLY, 2],
]);

const spec = (
  replies: readonly string[],
  ends: readonly string[],
  more: Partial<Omit<ReplySpec, "replies" | "ends">> = {},
): ReplySpec => ({ replies: set(replies), ends: set(ends), answered: true, ...more });

const WHOIS = spec(
  [...WHOIS_LINES, N.RPL_AWAY],
  [N.RPL_ENDOFWHOIS],
  { errorsBeforeEnd: set([N.ERR_NOSUCHNICK, N.ERR_NOSUCHSERVER]) },
);

const AWAY = spec([], [N.RPL_NOWAWAY]);
const BACK = spec([], [N.RPL_UNAWAY]);

/** Commands whose answers are known, by command. */
const SPECS: Record<string, ReplySpec> = {
  WHOIS,
  WHOWAS: spec([N.RPL_WHOISSERVER, N.RPL_WHOWASUSER, N.RPL_WHOISACCOUNT, N.RPL_WHOISACTUALLY], [
    N.RPL_ENDOFWHOWAS,
  ], { errorsBeforeEnd: set([N.ERR_WASNOSUCHNICK]) }),
  WHO: spec([N.RPL_WHOREPLY, N.RPL_WHOSPCRPL], [N.RPL_ENDOFWHO]),
  LIST: spec([N.RPL_LISTSTART, N.RPL_LIST], [N.RPL_LISTEND]),
  ISON: spec([], [N.RPL_ISON]),
  USERHOST: spec([], [N.RPL_USERHOST]),
  MOTD: spec([N.RPL_MOTDSTART, N.RPL_MOTD], [N.RPL_ENDOFMOTD, N.ERR_NOMOTD]),
  LUSERS: spec(
    [
      N.RPL_STATSCONN,
      N.RPL_LUSERCLIENT,
      N.RPL_LUSEROP,
      N.RPL_LUSERUNKNOWN,
      N.RPL_LUSERCHANNELS,
      N.RPL_LUSERME,
      N.RPL_LOCALUSERS,
    ],
    [N.RPL_GLOBALUSERS],
    { trail: set([N.RPL_STATSCONN]) },
  ),
  VERSION: spec([], [N.RPL_VERSION], { trail: set([N.RPL_ISUPPORT]) }),
  TIME: spec([], [N.RPL_TIME]),
  ADMIN: spec([N.RPL_ADMINME, N.RPL_ADMINLOC1, N.RPL_ADMINLOC2], [
    N.RPL_ADMINEMAIL,
    N.ERR_NOADMININFO,
  ]),
  INFO: spec([N.RPL_INFO, N.RPL_INFOSTART], [N.RPL_ENDOFINFO]),
  LINKS: spec([N.RPL_LINKS], [N.RPL_ENDOFLINKS]),
  HELP: spec([N.RPL_HELPSTART, N.RPL_HELPTXT], [N.RPL_ENDOFHELP]),
  KNOCK: spec([], [N.RPL_KNOCKDLVR, N.ERR_TOOMANYKNOCK, N.ERR_CHANOPEN, N.ERR_KNOCKONCHAN]),
  INVITE: spec([], [N.RPL_INVITING]),
  TRACE: spec(
    [
      N.RPL_TRACELINK,
      N.RPL_TRACECONNECTING,
      N.RPL_TRACEHANDSHAKE,
      N.RPL_TRACEUNKNOWN,
      N.RPL_TRACEOPERATOR,
      N.RPL_TRACEUSER,
      N.RPL_TRACESERVER,
      N.RPL_TRACESERVICE,
      N.RPL_TRACENEWTYPE,
      N.RPL_TRACECLASS,
      N.RPL_TRACERECONNECT,
      N.RPL_TRACELOG,
    ],
    [N.RPL_TRACEEND],
  ),
  SERVLIST: spec([N.RPL_SERVLIST], [N.RPL_SERVLISTEND]),
  USERS: spec([N.RPL_USERSSTART, N.RPL_USERS], [
    N.RPL_ENDOFUSERS,
    N.RPL_NOUSERS,
    N.ERR_USERSDISABLED,
  ]),
  SUMMON: spec([], [N.RPL_SUMMONING, N.ERR_SUMMONDISABLED]),
  OPER: spec([], [N.RPL_YOUREOPER, N.ERR_PASSWDMISMATCH, N.ERR_NOOPERHOST]),
  REHASH: spec([], [N.RPL_REHASHING, N.ERR_NOPRIVILEGES, N.ERR_NOPRIVS]),
};

/**
 * Operators' commands, answered when refused (or by nothing but their effect): a refusal names no
 * command, so it is the first waiting one's of these.
 */
const OPERATOR_COMMANDS = new Set([
  "KILL",
  "WALLOPS",
  "DIE",
  "RESTART",
  "SQUIT",
  "CONNECT",
  "KLINE",
  "UNKLINE",
  "DLINE",
  "UNDLINE",
  "GLINE",
  "ZLINE",
  "LOCOPS",
  "GLOBOPS",
  "OPERWALL",
]);

/** The refusals of a NICK, each naming the nick refused after the user's own. */
const NICK_REFUSALS = [
  N.ERR_ERRONEUSNICKNAME,
  N.ERR_NICKNAMEINUSE,
  N.ERR_BANNICKCHANGE,
  N.ERR_NICKCOLLISION,
  N.ERR_UNAVAILRESOURCE,
  N.ERR_NICKTOOFAST,
];

/** A command whose answer, if any, is only an error. */
const ERRORS_ONLY: ReplySpec = { replies: new Set(), ends: new Set(), answered: false };

/**
 * An operator's command (OPERATOR_COMMANDS): answered only when refused to a user who is not one,
 * by a refusal that names nothing.
 */
const OPERATORS_ONLY: ReplySpec = {
  ...ERRORS_ONLY,
  ends: set([N.ERR_NOPRIVILEGES, N.ERR_NOPRIVS, N.ERR_CANTKILLSERVER]),
};

/**
 * Commands some servers answer with notices alone and no end (ngircd's HELP): a PING written
 * after one tells where its answer ends (Hub.fence).
 */
export const NOTICE_ANSWERED: ReadonlySet<string> = new Set(["HELP", "HELPOP"]);

/** What answers a client's command (`isChannel` tells a channel's name from a nick). */
export function replySpec(
  command: string,
  params: readonly string[],
  isChannel: (name: string) => boolean,
): ReplySpec {
  const [target = "", modes, ...rest] = params;
  if (OPERATOR_COMMANDS.has(command)) return OPERATORS_ONLY;
  switch (command) {
    case "WHO":
      if (!target) return { ...SPECS.WHO, anySubject: true };
      // Each 352 of a channel's WHO names the channel: Parley's own WHO of another channel, sent
      // meanwhile, is not this client's. (A nick's may name any channel the person is in.)
      return isChannel(target)
        ? spec([N.RPL_WHOREPLY, N.RPL_WHOSPCRPL], [N.RPL_ENDOFWHO], {
          subjectAt: { [N.RPL_WHOREPLY]: 1 },
        })
        : SPECS.WHO;
    case "NAMES":
      if (!target) return spec([N.RPL_NAMREPLY], [N.RPL_ENDOFNAMES], { anySubject: true });
      return spec([N.RPL_NAMREPLY], [N.RPL_ENDOFNAMES], {
        endsNeeded: Math.max(1, target.split(",").length),
      });
    case "MODE": {
      if (!isChannel(target)) return modes ? ERRORS_ONLY : spec([], [N.RPL_UMODEIS]);
      if (!modes) return spec([], [N.RPL_CHANNELMODEIS], { trail: set([N.RPL_CREATIONTIME]) });
      if (rest.length) return ERRORS_ONLY;
      const list = modes.replace(/^\+/, "");
      if (list === "b") return spec([N.RPL_BANLIST], [N.RPL_ENDOFBANLIST]);
      if (list === "e") return spec([N.RPL_EXCEPTLIST], [N.RPL_ENDOFEXCEPTLIST]);
      if (list === "I") return spec([N.RPL_INVITELIST], [N.RPL_ENDOFINVITELIST]);
      return ERRORS_ONLY;
    }
    case "AWAY":
      // With a message the server says 306 (away now), without one 305 (back).
      return target ? AWAY : BACK;
    case "TOPIC":
      return params.length === 1
        ? spec([N.RPL_TOPIC], [N.RPL_NOTOPIC, N.RPL_TOPICWHOTIME])
        : ERRORS_ONLY;
    case "NICK":
      // The new nick is everyone's news (the server's NICK line); a refusal is the asker's, told
      // by the nick it names (a 432 or 437 of another's NICK, or of a JOIN, is not this one's).
      return {
        ...ERRORS_ONLY,
        ends: set(NICK_REFUSALS),
        subjectAt: Object.fromEntries(NICK_REFUSALS.map((n) => [n, 1])),
      };
    case "MONITOR":
      // Statuses (730/731) are news for every client, asked or not; the list is one client's.
      if (target.toUpperCase() === "L") return spec([N.RPL_MONLIST], [N.RPL_ENDOFMONLIST]);
      return { ...ERRORS_ONLY, ends: set([N.ERR_MONLISTFULL]) };
    case "STATS":
      return spec(
        [
          N.RPL_STATSLINKINFO,
          N.RPL_STATSCOMMANDS,
          N.RPL_STATSCLINE,
          N.RPL_STATSNLINE,
          N.RPL_STATSILINE,
          N.RPL_STATSKLINE,
          N.RPL_STATSQLINE,
          N.RPL_STATSYLINE,
          N.RPL_STATSVLINE,
          N.RPL_STATSLLINE,
          N.RPL_STATSUPTIME,
          N.RPL_STATSOLINE,
          N.RPL_STATSHLINE,
          N.RPL_STATSPING,
          N.RPL_STATSBLINE,
          N.RPL_STATSDEFINE,
          N.RPL_STATSDEBUG,
          N.RPL_STATSCONN,
        ],
        [N.RPL_ENDOFSTATS],
      );
  }
  return SPECS[command] ?? ERRORS_ONLY;
}

/** One client's command waiting for its answer. */
export interface Pending<C> {
  client: C;
  command: string;
  spec: ReplySpec;
  /** The command and its parameters (each, and each comma-separated part), casefolded. */
  subjects: ReadonlySet<string>;
  label?: string;
  /**
   * The label it was sent upstream with, when the server has labeled-response: its answer is
   * told by that label, not by numerics.
   */
  upstreamLabel?: string;
  /** The labeled-response batch opened for it; "-" when its one line carried the label. */
  batch?: string;
  /** Lines it was given. */
  given: number;
  endsLeft: number;
  /**
   * When it times out (pushed back by every reply); Infinity until its command is written: a
   * command may wait minutes for the network's flood control (a client's sync of every channel
   * after it attaches), and its answer cannot come before.
   */
  deadline: number;
  /** Its place in the order the commands were written to the server (0: not yet). */
  order: number;
}

/** Where one reply goes, and whether it ends its entry. */
export interface Routed<C> {
  entry: Pending<C>;
  ends: boolean;
}

/**
 * Most commands waiting at once on one connection, written or still behind its flood control. A
 * client's sync after it attaches asks a WHO and a MODE of every channel at once (up to 200 lines
 * of one client may wait to be written): each must find its entry when its answer comes.
 */
const MAX_PENDING = 512;

/** Options (tests set the clock). */
interface PendingOptions {
  max?: number;
  timeoutMs?: number;
  now?: () => number;
}

/** One connection's queue of commands waiting for their answer. */
export class PendingReplies<C> {
  #entries: Pending<C>[] = [];
  /** The server's labeled-response batches, by id. */
  #batches = new Map<string, Pending<C>>();
  /** The entry that just ended, whose trail may follow. */
  #ended?: Pending<C>;
  /** Commands written so far, for each entry's `order`. */
  #writes = 0;
  /**
   * No entry's deadline is before this (replies push deadlines back, so it may be earlier than
   * the soonest): `expired`, asked for every line the server sends, looks at the entries only then.
   */
  #soonest = Infinity;
  readonly #max: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(opts: PendingOptions = {}) {
    this.#max = opts.max ?? MAX_PENDING;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Queues a command's wait for its answer; undefined when too many wait. */
  add(
    client: C,
    command: string,
    params: readonly string[],
    spec: ReplySpec,
    label?: string,
    upstreamLabel?: string,
  ): Pending<C> | undefined {
    if (this.#entries.length >= this.#max) {
      // A command that may get no answer gives way; queries waiting for theirs do not.
      const at = this.#entries.findIndex((e) => !e.spec.answered);
      if (at < 0) return undefined;
      this.#entries.splice(at, 1);
    }
    const subjects = new Set([ircLower(command)]);
    for (const p of params) {
      subjects.add(ircLower(p));
      for (const part of p.split(",")) if (part) subjects.add(ircLower(part));
    }
    const entry: Pending<C> = {
      client,
      command,
      spec,
      subjects,
      label,
      upstreamLabel,
      given: 0,
      endsLeft: spec.endsNeeded ?? 1,
      deadline: Infinity,
      order: 0,
    };
    this.#entries.push(entry);
    return entry;
  }

  /**
   * The entry's command was written to the server: its answer may take the timeout from now. A
   * command waits for the network's flood control first, minutes behind a client's resync; timed
   * from when it was asked, it ran out before the server saw it, and its answer went to nobody.
   */
  written(entry: Pending<C>): void {
    entry.deadline = this.#now() + this.#timeoutMs;
    entry.order = ++this.#writes;
    this.#soonest = Math.min(this.#soonest, entry.deadline);
  }

  /** The entry a numeric (or a FAIL, WARN or NOTE) answers, taken off when it ends it. */
  route(m: Message): Routed<C> | undefined {
    const standard = m.command === "FAIL" || m.command === "WARN" || m.command === "NOTE";
    if (!standard && !/^\d{3}$/.test(m.command)) return undefined;
    const ended = this.#ended;
    this.#ended = undefined;
    if (ended?.spec.trail?.has(m.command)) {
      ended.given++;
      return { entry: ended, ends: false };
    }
    // An entry sent with a label is answered by its label (see Hub), not here; one still behind
    // the flood control has no answer yet (a reply naming the same channel is an earlier one's).
    const at = this.#entries.findIndex((e) =>
      isWritten(e) && !e.upstreamLabel && (standard ? standardFor(e, m) : takes(e, m))
    );
    if (at < 0) return undefined;
    const entry = this.#entries[at];
    entry.given++;
    entry.deadline = this.#now() + this.#timeoutMs;
    this.#settle(entry);
    if (!endsWith(entry, m) || --entry.endsLeft > 0) return { entry, ends: false };
    this.#entries.splice(this.#entries.indexOf(entry), 1);
    if (entry.spec.trail) this.#ended = entry;
    return { entry, ends: true };
  }

  /**
   * A server answers a client's commands in the order they came, and refuses a command while it
   * handles it: once a later command is answered, an earlier one that may get no answer (a KICK,
   * a mode change) has had whatever refusal it was going to get. It is taken off, so a refusal of
   * the same name meant for a later command is not taken for it.
   */
  #settle(answered: Pending<C>): void {
    const done = (e: Pending<C>) =>
      e !== answered && isWritten(e) && !e.spec.answered && !e.upstreamLabel &&
      e.order < answered.order;
    if (this.#entries.some(done)) this.#entries = this.#entries.filter((e) => !done(e));
  }

  /** Takes off the entries whose answer did not come in time. */
  expired(): Pending<C>[] {
    const now = this.#now();
    if (now < this.#soonest) return [];
    this.#soonest = Math.min(Infinity, ...this.#entries.map((e) => e.deadline));
    if (now < this.#soonest) return [];
    const gone = this.#entries.filter((e) => e.deadline <= now);
    this.#entries = this.#entries.filter((e) => e.deadline > now);
    this.#soonest = Math.min(Infinity, ...this.#entries.map((e) => e.deadline));
    for (const e of gone) this.remove(e);
    return gone;
  }

  /** Takes off one entry (its command was not sent, or its labeled answer is complete). */
  remove(entry: Pending<C>): void {
    this.#entries = this.#entries.filter((e) => e !== entry);
    for (const [id, e] of this.#batches) if (e === entry) this.#batches.delete(id);
  }

  /**
   * The server did what an entry's command asked without a numeric (the user's NICK line for a
   * NICK): the first waiting `command` that named `name` is done, or else the oldest one (a
   * server may cut a nick to its NICKLEN), so a later refusal of another attempt is not taken
   * for it.
   */
  done(command: string, name: string): void {
    const named = this.#entries.findIndex((e) =>
      e.command === command && e.subjects.has(ircLower(name))
    );
    const at = named >= 0 ? named : this.#entries.findIndex((e) => e.command === command);
    if (at >= 0) this.#entries.splice(at, 1);
  }

  /** The entry sent upstream with this label. */
  byLabel(label: string): Pending<C> | undefined {
    return this.#entries.find((e) => e.upstreamLabel === label);
  }

  /** The server opened its labeled-response batch for an entry. */
  openBatch(id: string, entry: Pending<C>): void {
    if (this.#batches.size < this.#max) this.#batches.set(id, entry);
  }

  /** The entry whose labeled-response batch this is (while it waits). */
  inBatch(id: string): Pending<C> | undefined {
    const e = this.#batches.get(id);
    if (e && this.#entries.includes(e)) return e;
    this.#batches.delete(id);
    return undefined;
  }

  /** A client left: its answers still end its entries, and go to `instead`. */
  replace(client: C, instead: C): void {
    for (const e of this.#entries) if (e.client === client) e.client = instead;
    if (this.#ended?.client === client) this.#ended = undefined;
  }

  /** Takes off every entry (the connection registered again: no answer will come). */
  clear(): Pending<C>[] {
    this.#ended = undefined;
    this.#batches.clear();
    return this.#entries.splice(0);
  }
}

/** Whether an entry's command was written to the server: only then may a reply be its. */
const isWritten = (e: Pending<unknown>) => e.deadline !== Infinity;

/** Whether an entry takes a numeric. */
function takes(e: Pending<unknown>, m: Message): boolean {
  const n = m.command;
  const s = e.spec;
  const listed = s.replies.has(n) || s.ends.has(n) || !!s.errorsBeforeEnd?.has(n);
  if (!listed && !ERROR_ENDS.has(n)) return false;
  if (s.anySubject) return listed;
  const at = s.subjectAt?.[n] ?? SUBJECT_AT[n];
  const subject = at === undefined ? undefined : m.params[at];
  // A numeric that names nothing is taken by the first entry that lists it.
  if (subject === undefined) return listed;
  return e.subjects.has(ircLower(subject));
}

/** Whether a numeric the entry took ends it. */
function endsWith(e: Pending<unknown>, m: Message): boolean {
  if (m.command === "FAIL") return true;
  if (e.spec.ends.has(m.command)) return true;
  return ERROR_ENDS.has(m.command) && !e.spec.errorsBeforeEnd?.has(m.command) &&
    !e.spec.replies.has(m.command);
}

/** A standard reply (`FAIL SETNAME INVALID_REALNAME ...`) names its command first. */
function standardFor(e: Pending<unknown>, m: Message): boolean {
  return (m.params[0] ?? "").toUpperCase() === e.command;
}
