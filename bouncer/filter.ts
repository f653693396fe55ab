/**
 * What one client may see of a line: only the tags and lines of the capabilities it negotiated
 * (tags stripped, extended-join downgraded, AWAY/CHGHOST/SETNAME/ACCOUNT/TAGMSG dropped, one prefix per
 * member without multi-prefix).
 */
import type { Caps } from "./caps.ts";
import { formatLine, type Message } from "./wire.ts";

/** Lines dropped for a client without the capability that brings them. */
const NEEDS: Record<string, string> = {
  AWAY: "away-notify",
  CHGHOST: "chghost",
  SETNAME: "setname",
  ACCOUNT: "account-notify",
  BATCH: "batch",
  TAGMSG: "message-tags",
};

/** The tags a client keeps, by capability. */
function keptTags(caps: Caps, tags: Map<string, string>): Map<string, string> {
  if (caps.has("message-tags")) {
    const out = new Map(tags);
    if (!caps.has("server-time")) out.delete("time");
    if (!caps.has("batch")) out.delete("batch");
    if (!caps.has("labeled-response")) out.delete("label");
    return out;
  }
  const out = new Map<string, string>();
  for (
    const [name, cap] of [["time", "server-time"], ["batch", "batch"], [
      "label",
      "labeled-response",
    ]]
  ) {
    const v = tags.get(name);
    if (v !== undefined && caps.has(cap)) out.set(name, v);
  }
  return out;
}

/**
 * The line as this client gets it, or undefined when it gets none. `prefixes` is PREFIX's
 * symbols (for multi-prefix); `myNick` tells an INVITE of the user from one of someone else.
 */
export function forClient(
  caps: Caps,
  m: Message,
  opts: { prefixes: string; myNick: string },
): string | undefined {
  const need = NEEDS[m.command];
  if (need && !caps.has(need)) return undefined;
  let params = m.params;
  if (m.command === "JOIN" && params.length >= 3 && !caps.has("extended-join")) {
    params = params.slice(0, 1);
  }
  if (
    m.command === "INVITE" && !caps.has("invite-notify") &&
    (params[0] ?? "").toLowerCase() !== opts.myNick.toLowerCase()
  ) return undefined;
  if (!caps.has("multi-prefix")) params = singlePrefix(m.command, params, opts.prefixes);
  try {
    return formatLine(m.command, params, { prefix: m.prefix, tags: keptTags(caps, m.tags) });
  } catch {
    return undefined; // a line the writer refuses is not passed on
  }
}

/** 353's names and 352's flags keep only their strongest prefix. */
function singlePrefix(command: string, params: string[], symbols: string): string[] {
  const strip = (word: string) => {
    let i = 0;
    while (i < word.length && symbols.includes(word[i])) i++;
    return i > 1 ? word[0] + word.slice(i) : word;
  };
  if (command === "353" && params.length >= 4) {
    return [...params.slice(0, -1), params.at(-1)!.split(" ").map(strip).join(" ")];
  }
  if (command === "352" && params.length >= 7) {
    const flags = params[6];
    const kept = flags.replace(
      new RegExp(`[${symbols.replace(/[\]\\^-]/g, "\\$&")}]+`),
      (s) => s[0],
    );
    return [...params.slice(0, 6), kept, ...params.slice(7)];
  }
  return params;
}
