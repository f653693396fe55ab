/** Channel members: who is in each channel, with their prefix modes, kept current from events. */
import { signal } from "@preact/signals";

/** One member: the nick and its prefix mode letters (`o`, `v`...), highest first. */
export interface Member {
  nick: string;
  modes: string[];
}

/** Whether the member list is shown: beside the messages on a wide screen, over them on a phone. */
export const membersOpen = signal(
  typeof matchMedia === "function" ? !matchMedia("(max-width: 760px)").matches : true,
);

/** Members per conversation key (`key(cid, conv)`), only for channels whose list was loaded. */
export const members = signal<Record<string, Member[]>>({});

/**
 * Nicks known to be away, lower-cased, per connection id: the user after /away, whoever a whois
 * answered about (away or not), and whoever the server says is away or back (`away` events, and
 * `/names` answers, from a WHO after joining and AWAY lines where the server sends them).
 */
export const awayNicks = signal<Record<string, ReadonlySet<string>>>({});

/** Records whether `nick` on connection `cid` is away. */
export function setAwayNick(cid: string, nick: string, isAway: boolean): void {
  const now = new Set(awayNicks.value[cid] ?? []);
  const n = nick.toLowerCase();
  if (isAway === now.has(n)) return;
  if (isAway) now.add(n);
  else now.delete(n);
  awayNicks.value = { ...awayNicks.value, [cid]: now };
}

/** A server's PREFIX: its member modes, highest rank first, and the sign of each. */
interface Prefix {
  modes: string;
  signs: string;
}

/** The usual PREFIX of IRC servers: owner, admin, operator, half-op, voice. */
const DEFAULT_PREFIX: Prefix = { modes: "qaohv", signs: "~&@%+" };

/** Reads ISUPPORT's "(ov)@+" (a connection's `info.prefix`); the usual one when absent or odd. */
export function parsePrefix(text: unknown): Prefix {
  const m = typeof text === "string" ? /^\(([A-Za-z]*)\)(\S*)$/.exec(text) : null;
  if (!m || m[1].length !== [...m[2]].length) return DEFAULT_PREFIX;
  return { modes: m[1], signs: m[2] };
}

/** The sign shown before a member's nick (`@` for an operator), or "". */
export function prefixOf(m: Member, p: Prefix = DEFAULT_PREFIX): string {
  const i = rank(m, p);
  return i < p.modes.length ? [...p.signs][i] : "";
}

/** 0 for the highest mode up to the number of modes for a member without a prefix mode. */
export function rank(m: Member, p: Prefix = DEFAULT_PREFIX): number {
  let best = p.modes.length;
  for (const mode of m.modes) {
    const i = p.modes.indexOf(mode);
    if (i >= 0 && i < best) best = i;
  }
  return best;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Members sorted as IRC clients show them: by rank, then by nick.
 *
 * @internal test seam
 */
export function sortMembers(list: Member[], p: Prefix = DEFAULT_PREFIX): Member[] {
  return [...list].sort((a, b) =>
    rank(a, p) - rank(b, p) || a.nick.toLowerCase().localeCompare(b.nick.toLowerCase())
  );
}

/** A group of the member list: operators (and above), voiced (and half-ops), everyone else. */
interface MemberGroup {
  rank: "op" | "voice" | "rest";
  members: Member[];
}

/** The members sorted and grouped by rank, as IRC clients list them; empty groups left out. */
export function groupMembers(list: Member[], p: Prefix = DEFAULT_PREFIX): MemberGroup[] {
  const op = p.modes.indexOf("o");
  const groups: MemberGroup[] = [
    { rank: "op", members: [] },
    { rank: "voice", members: [] },
    { rank: "rest", members: [] },
  ];
  for (const m of sortMembers(list, p)) {
    const r = rank(m, p);
    groups[r < p.modes.length ? (op >= 0 && r <= op ? 0 : 1) : 2].members.push(m);
  }
  return groups.filter((g) => g.members.length);
}

/** Members whose nick contains `filter` (case-insensitively). */
export function filterMembers(list: Member[], filter: string): Member[] {
  const f = filter.trim().toLowerCase();
  return f ? list.filter((m) => m.nick.toLowerCase().includes(f)) : list;
}

/** The list after `nick` joined. */
export function joined(list: Member[], nick: string): Member[] {
  return list.some((m) => same(m.nick, nick)) ? list : [...list, { nick, modes: [] }];
}

/** The list after `nick` left (part, kick or quit). */
export function left(list: Member[], nick: string): Member[] {
  return list.filter((m) => !same(m.nick, nick));
}

/** The list after `from` became `to`. */
export function renamed(list: Member[], from: string, to: string): Member[] {
  return list.map((m) => same(m.nick, from) ? { ...m, nick: to } : m);
}

// Channel modes that take a parameter: always (b, e, I, k, and the prefix modes) or only when set (l).
const ALWAYS_PARAM = "beIk";

/** The list after a MODE change such as `+o-v bob carol` (other modes are skipped). */
export function moded(list: Member[], change: string, p: Prefix = DEFAULT_PREFIX): Member[] {
  const [modes = "", ...params] = change.trim().split(/\s+/);
  let adding = true;
  let out = list;
  for (const ch of modes) {
    if (ch === "+" || ch === "-") {
      adding = ch === "+";
      continue;
    }
    const member = p.modes.includes(ch);
    const takes = member || ALWAYS_PARAM.includes(ch) || (ch === "l" && adding);
    const param = takes ? params.shift() : undefined;
    if (!param || !member) continue;
    out = out.map((m) => {
      if (!same(m.nick, param)) return m;
      const rest = m.modes.filter((x) => x !== ch);
      return { ...m, modes: adding ? [...rest, ch] : rest };
    });
  }
  return out;
}

/** A change to the member lists: its function, and which lists (conversation keys) it is for. */
interface Change {
  seq: number;
  fn: (list: Member[]) => Member[] | undefined;
  keys: (k: string) => boolean;
}

// The latest changes, so that a list asked for before some of them and answered after (the
// answer and the events take different ways through the server) gets them too. Replaying a change
// the answer already had is harmless: each sets a state (present, gone, renamed, a mode).
const MAX_CHANGES = 1000;
let changes: Change[] = [];
let seq = 0;

function logChange(fn: Change["fn"], keys: Change["keys"]): void {
  changes.push({ seq: ++seq, fn, keys });
  if (changes.length > 2 * MAX_CHANGES) changes = changes.slice(-MAX_CHANGES);
}

/** Where the changes stand now: given to `setMembers` with a list asked for from now on. */
export function membersMark(): number {
  return seq;
}

/**
 * Replaces the member list of one channel; `since` (a `membersMark` taken when the list was
 * asked for) applies the changes seen since, which the list may not have.
 */
export function setMembers(k: string, list: Member[], since?: number): void {
  let out: Member[] | undefined = list;
  for (const c of changes) {
    if (out && since !== undefined && c.seq > since && c.keys(k)) out = c.fn(out);
  }
  if (out) members.value = { ...members.value, [k]: out };
}

/** Applies `fn` to the loaded member lists of the given keys, and to those on their way. */
export function updateMembers(
  fn: (list: Member[]) => Member[],
  keys: (k: string) => boolean,
): void {
  logChange(fn, keys);
  let changed = false;
  const next: Record<string, Member[]> = {};
  for (const [k, list] of Object.entries(members.value)) {
    const out = keys(k) ? fn(list) : list;
    if (out !== list) changed = true;
    next[k] = out;
  }
  if (changed) members.value = next;
}

/** Forgets the member lists of the given keys (a connection that went down: nobody knows). */
export function forgetMembers(keys: (k: string) => boolean): void {
  logChange(() => undefined, keys);
  const kept = Object.entries(members.value).filter(([k]) => !keys(k));
  if (kept.length < Object.keys(members.value).length) members.value = Object.fromEntries(kept);
}
