/**
 * Where the server's replies to a client's own commands go: one queue per connection of what each
 * client asked (the command, its names, the numerics that answer it and those that end it),
 * matched in order. A reply goes to the first entry that takes it; one no entry takes is not a
 * client's and the caller sends it to everyone. An entry never blocks the ones behind it (a reply
 * it does not take goes on down the queue), and one whose answer never comes times out, so one
 * unanswered question cannot send everyone's answers to one client.
 */
import { ircLower } from "../irc/casefold.ts";
import type { Message } from "./wire.ts";

/** What answers one command. */
export interface ReplySpec {
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
  /** An answer always comes (a query): a label waits for it. Else the command may get none. */
  answered: boolean;
}

const set = (codes: string) => new Set(codes.split(" ").filter(Boolean));

/**
 * Errors that end whatever command they name: the name or command in their first parameter
 * after the nick must be one the command gave.
 */
const ERROR_ENDS = set(
  "263 401 402 403 404 405 406 411 412 416 421 432 441 442 443 461 467 471 473 474 475 476 477 " +
    "478 479 480 482 501 502 524",
);

/** Numerics whose parameter at this place names what was asked (a nick, channel, command). */
const SUBJECT_AT: Record<string, number> = Object.fromEntries([
  ...[
    ..."263 301 307 311 312 313 314 315 317 318 319 320 324 329 330 331 332 333 338 341 346 347"
      .split(" "),
    ..."348 349 366".split(" "),
    ..."367 368 369 378 379 671 276 335 401 402 403 404 405 406 421 441 442 443 461 467".split(" "),
    ..."471 473 474 475 476 477 478 479 482 524 704 705 706 710 711 712 713 714".split(" "),
  ].map((c) => [c, 1]),
  ["353", 2],
]);

const spec = (
  replies: string,
  ends: string,
  more: Partial<Omit<ReplySpec, "replies" | "ends">> = {},
): ReplySpec => ({ replies: set(replies), ends: set(ends), answered: true, ...more });

const WHOIS = spec(
  "276 301 307 311 312 313 317 319 320 330 335 338 378 379 671",
  "318",
  { errorsBeforeEnd: set("401 402") },
);

/** Commands whose answers are known, by command. */
const SPECS: Record<string, ReplySpec> = {
  WHOIS,
  WHOWAS: spec("312 314 330 338", "369", { errorsBeforeEnd: set("406") }),
  WHO: spec("352 354", "315"),
  LIST: spec("321 322", "323"),
  ISON: spec("", "303"),
  USERHOST: spec("", "302"),
  MOTD: spec("375 372", "376 422"),
  LUSERS: spec("250 251 252 253 254 255 265", "266", { trail: set("250") }),
  VERSION: spec("", "351", { trail: set("005") }),
  TIME: spec("", "391"),
  ADMIN: spec("256 257 258", "259 423"),
  INFO: spec("371 373", "374"),
  LINKS: spec("364", "365"),
  HELP: spec("704 705", "706"),
  KNOCK: spec("", "711 712 713 714"),
  INVITE: spec("", "341"),
};

/** A command whose answer, if any, is only an error. */
const ERRORS_ONLY: ReplySpec = { replies: new Set(), ends: new Set(), answered: false };

/** What answers a client's command (`isChannel` tells a channel's name from a nick). */
export function replySpec(
  command: string,
  params: readonly string[],
  isChannel: (name: string) => boolean,
): ReplySpec {
  const [target = "", modes, ...rest] = params;
  switch (command) {
    case "WHO":
      // Each 352 of a channel's WHO names the channel: Parley's own WHO of another channel, sent
      // meanwhile, is not this client's. (A nick's may name any channel the person is in.)
      return isChannel(target) ? spec("352 354", "315", { subjectAt: { "352": 1 } }) : SPECS.WHO;
    case "NAMES":
      return spec("353", "366", { endsNeeded: Math.max(1, target.split(",").length) });
    case "MODE": {
      if (!isChannel(target)) return modes ? ERRORS_ONLY : spec("", "221");
      if (!modes) return spec("", "324", { trail: set("329") });
      if (rest.length) return ERRORS_ONLY;
      const list = modes.replace(/^\+/, "");
      if (list === "b") return spec("367", "368");
      if (list === "e") return spec("348", "349");
      if (list === "I") return spec("346", "347");
      return ERRORS_ONLY;
    }
    case "TOPIC":
      return params.length === 1 ? spec("332", "331 333") : ERRORS_ONLY;
    case "MONITOR":
      // Statuses (730/731) are news for every client, asked or not; the list is one client's.
      if (target.toUpperCase() === "L") return spec("732", "733");
      return { ...ERRORS_ONLY, ends: set("734") };
    case "STATS":
      return spec(
        "211 212 213 214 215 216 217 218 240 241 242 243 244 246 247 248 249 250",
        "219",
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
  /** When it times out (pushed back by every reply). */
  deadline: number;
}

/** Where one reply goes, and whether it ends its entry. */
export interface Routed<C> {
  entry: Pending<C>;
  ends: boolean;
}

/** Options (tests set the clock). */
export interface PendingOptions {
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
  readonly #max: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(opts: PendingOptions = {}) {
    this.#max = opts.max ?? 64;
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
      deadline: this.#now() + this.#timeoutMs,
    };
    this.#entries.push(entry);
    return entry;
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
    // An entry sent with a label is answered by its label (see Hub), not here.
    const at = this.#entries.findIndex((e) =>
      !e.upstreamLabel && (standard ? standardFor(e, m) : takes(e, m))
    );
    if (at < 0) return undefined;
    const entry = this.#entries[at];
    entry.given++;
    entry.deadline = this.#now() + this.#timeoutMs;
    if (!endsWith(entry, m) || --entry.endsLeft > 0) return { entry, ends: false };
    this.#entries.splice(at, 1);
    if (entry.spec.trail) this.#ended = entry;
    return { entry, ends: true };
  }

  /** Takes off the entries whose answer did not come in time. */
  expired(): Pending<C>[] {
    const now = this.#now();
    if (!this.#entries.some((e) => e.deadline <= now)) return [];
    const gone = this.#entries.filter((e) => e.deadline <= now);
    this.#entries = this.#entries.filter((e) => e.deadline > now);
    for (const e of gone) this.remove(e);
    return gone;
  }

  /** Takes off one entry (its command was not sent, or its labeled answer is complete). */
  remove(entry: Pending<C>): void {
    this.#entries = this.#entries.filter((e) => e !== entry);
    for (const [id, e] of this.#batches) if (e === entry) this.#batches.delete(id);
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

/** Whether an entry takes a numeric. */
function takes(e: Pending<unknown>, m: Message): boolean {
  const n = m.command;
  const s = e.spec;
  const listed = s.replies.has(n) || s.ends.has(n) || !!s.errorsBeforeEnd?.has(n);
  if (!listed && !ERROR_ENDS.has(n)) return false;
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
