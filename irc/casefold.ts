/** IRC casefolding: names that IRC treats as equal map to one conversation_id. */

/** A CASEMAPPING value from RPL_ISUPPORT. */
export type CaseMapping = "rfc1459" | "strict-rfc1459" | "ascii";

/**
 * Lower-cases an IRC name the way the server compares names. Under rfc1459 (the default, and
 * what Parley uses for ids) `[]\^` are the upper-case forms of `{}|~`, so `#Foo[1]` -> `#foo{1}`.
 */
export function ircLower(name: string, mapping: CaseMapping = "rfc1459"): string {
  const top = mapping === "ascii" ? 90 : mapping === "strict-rfc1459" ? 93 : 94;
  let out = "";
  for (let i = 0; i < name.length; i++) {
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
