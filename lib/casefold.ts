/**
 * IRC names: casefolding, the rule by which conversation ids are stored, shared by IRC (which
 * folds names as it meets them) and the store (which folds the `#name` of a search), so that the
 * store imports no IRC code; and which names are channels.
 */

/** A CASEMAPPING value from RPL_ISUPPORT. */
export type CaseMapping = "rfc1459" | "strict-rfc1459" | "ascii";

/**
 * Lower-cases an IRC name the way the server compares names. Under rfc1459 (the default, and
 * what Parley uses for ids) `[]\^` are the upper-case forms of `{}|~`, so `#Foo[1]` -> `#foo{1}`.
 */
export function ircLower(name: string, mapping: CaseMapping = "rfc1459"): string {
  const top = mapping === "ascii" ? 90 : mapping === "strict-rfc1459" ? 93 : 94;
  // Most names are lower case already (every line of a burst folds its channel's): no new string.
  let i = 0;
  while (i < name.length) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= top) break;
    i++;
  }
  if (i === name.length) return name;
  let out = name.slice(0, i);
  for (; i < name.length; i++) {
    const c = name.charCodeAt(i);
    out += c >= 65 && c <= top ? String.fromCharCode(c + 32) : name[i];
  }
  return out;
}

/** True when `name` is a channel name (starts with one of the channel prefixes). */
export function isChannel(
  name: string,
  chantypes: readonly string[] = ["#", "&", "!", "+"],
): boolean {
  return name.length > 1 && chantypes.includes(name[0]);
}
