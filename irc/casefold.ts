/** IRC names: casefolding (kept in lib/, where the store reaches it too) and channel names. */
export { type CaseMapping, ircLower } from "../lib/casefold.ts";

/** True when `name` is a channel name (starts with one of the channel prefixes). */
export function isChannel(
  name: string,
  chantypes: readonly string[] = ["#", "&", "!", "+"],
): boolean {
  return name.length > 1 && chantypes.includes(name[0]);
}
