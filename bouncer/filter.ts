/**
 * What one client may see of a line: the capability table's rows (caps.ts) for every capability
 * it did not negotiate, applied in turn: their commands dropped, their tags stripped, their
 * rewrites made.
 */
import { CAPABILITIES, type CapName, type CapRow, type Caps, type FilterContext } from "./caps.ts";
import { formatMessage, type IrcMessage } from "../irc/protocol/message.ts";

/** The capability a command needs, by command. */
const DROPPED = new Map<string, CapName>(
  CAPABILITIES.flatMap((c) => (c.drops ?? []).map((cmd) => [cmd, c.name] as [string, CapName])),
);

/** The capability a tag needs, by tag name; a tag no row names needs message-tags. */
const TAG_OWNER = new Map<string, CapName>(
  CAPABILITIES.flatMap((c) => (c.tags ?? []).map((t) => [t, c.name] as [string, CapName])),
);

const REWRITES: readonly CapRow[] = CAPABILITIES.filter((c) => c.rewrite);

/**
 * The tags a client keeps, the server's before the client-only ones (message-tags: so that
 * client tags, not the server's, are what a size limit would push out).
 */
function keptTags(caps: Caps, tags: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  let client: [string, string][] | undefined;
  for (const [name, value] of tags) {
    if (!caps.has(TAG_OWNER.get(name) ?? "message-tags")) continue;
    if (name.startsWith("+")) (client ??= []).push([name, value]);
    else out.set(name, value);
  }
  if (client) { for (const [name, value] of client) out.set(name, value); }
  return out;
}

/**
 * The line as this client gets it, or undefined when it gets none. `prefixes` is PREFIX's
 * symbols (for multi-prefix); `myNick` tells an INVITE of the user from one of someone else.
 */
export function forClient(caps: Caps, m: IrcMessage, ctx: FilterContext): string | undefined {
  const need = DROPPED.get(m.command);
  if (need && !caps.has(need)) return undefined;
  let line: IrcMessage | undefined = m;
  for (const row of REWRITES) {
    if (!caps.has(row.name)) line = row.rewrite!(line, ctx);
    if (!line) return undefined;
  }
  try {
    return formatMessage({
      command: line.command,
      params: line.params,
      prefix: line.prefix,
      tags: keptTags(caps, line.tags),
    });
  } catch {
    return undefined; // a line the writer refuses is not passed on
  }
}
