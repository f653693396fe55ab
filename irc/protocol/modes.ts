/**
 * Channel mode strings: which changes a MODE line makes (the server's CHANMODES and PREFIX say
 * which modes take a parameter), and a channel's modes kept up to date by them, as RPL_CHANNELMODEIS
 * spells them (`+ntk key`).
 */

/** One change of a mode string: `+o` and its parameter. */
export type ModeChange = { mode: string; param?: string };

/** CHANMODES when the server gave none: lists, always a parameter, one when set, never. */
export const DEFAULT_CHANMODES: readonly string[] = ["beI", "k", "l", "imnpst"];

/**
 * Each change of a mode string with its parameter: `+o bob` -> `{mode: "+o", param: "bob"}`.
 * CHANMODES' lists A and B and the prefix modes always take one, C when set.
 */
export function modeChanges(
  modes: string,
  params: readonly string[],
  chanmodes: readonly string[],
  prefixModes: readonly string[],
): ModeChange[] {
  const always = (chanmodes[0] ?? "") + (chanmodes[1] ?? "") + prefixModes.join("");
  const whenSet = chanmodes[2] ?? "";
  const out: ModeChange[] = [];
  let sign = "+";
  let next = 0;
  for (const c of modes.slice(0, 100)) {
    if (c === "+" || c === "-") sign = c;
    else if (always.includes(c) || (sign === "+" && whenSet.includes(c))) {
      out.push({ mode: sign + c, param: params[next++] });
    } else out.push({ mode: sign + c });
  }
  return out;
}

/** Longest mode string kept: a hostile server's endless modes are not. */
const MAX_MODES_LENGTH = 400;

/**
 * A channel's modes (`+ntl 10`, as RPL_CHANNELMODEIS gives them; "" when not known) after
 * `changes`. Lists (bans, exceptions) and members' ranks are not the channel's modes and are
 * skipped. A mode CHANMODES does not name, whose parameter cannot be told, makes them unknown
 * (""): a client asking then is answered by the server.
 */
export function applyChannelModes(
  current: string,
  changes: readonly ModeChange[],
  chanmodes: readonly string[],
  prefixModes: readonly string[],
): string {
  if (!current.startsWith("+")) return "";
  const [lists = "", withParam = "", whenSet = "", flags = ""] = chanmodes;
  const [letters, ...params] = current.slice(1).split(" ");
  /** Each mode set, in the order set, with its parameter: the modes as read like a change. */
  const set = new Map(
    modeChanges(`+${letters}`, params, chanmodes, prefixModes).map((m) => [m.mode[1], m.param]),
  );
  for (const { mode, param } of changes) {
    const c = mode[1];
    if (lists.includes(c) || prefixModes.includes(c)) continue;
    const takesParam = withParam.includes(c) || whenSet.includes(c);
    if (!takesParam && !flags.includes(c)) return "";
    if (mode[0] === "-") set.delete(c);
    else if (takesParam && param === undefined) return "";
    else {
      set.delete(c); // a new parameter moves the mode last, as a server lists it
      set.set(c, takesParam ? param : undefined);
    }
  }
  const args = [...set.values()].filter((v) => v !== undefined);
  const out = ["+" + [...set.keys()].join(""), ...args].join(" ");
  return out.length > MAX_MODES_LENGTH ? "" : out;
}
