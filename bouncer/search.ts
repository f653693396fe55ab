/**
 * soju.im/search: `SEARCH in=#chan;from=nick;text=words;before=...;after=...;limit=n` over
 * Parley's search, answered as a `soju.im/search` batch of the matching messages, oldest first,
 * each with the time and msgid it has live, addressed to the conversation as it is named
 * (`#Chan`, not the folded `#chan` the store keys it by).
 */
import { ircLower } from "../lib/casefold.ts";
import { parseMicros } from "../protocol/time.ts";
import type { Store } from "../store/mod.ts";
import { parseAttributes } from "./networks.ts";
import { formatMessage } from "../irc/protocol/message.ts";
import { actionWrap } from "../irc/protocol/ctcp.ts";
import { batchId } from "./batch_id.ts";
import { parseMsgid } from "../lib/msgid.ts";
import { type Named, repliesOf } from "./history/replies.ts";
import type { MessageJson } from "../protocol/messages.ts";

/** The most messages one SEARCH returns. */
const SEARCH_LIMIT = 100;

/** What a search is about: the user, the bound connection and the client's nick. */
interface SearchScope {
  userId: number;
  connectionId: string;
  nick: string;
  isChannel(name: string): boolean;
}

/** Answers one SEARCH (its attribute list): a batch, or a FAIL line. */
export async function search(store: Store, scope: SearchScope, text: string): Promise<string[]> {
  const fail = (code: string, why: string) => [`FAIL SEARCH ${code} :${why}`];
  const finder = store.messages.search;
  if (!finder) return fail("TEMPORARILY_UNAVAILABLE", "Search is not available");
  const attrs = parseAttributes(text);
  const known = new Set(["in", "from", "text", "before", "after", "limit"]);
  if ([...attrs.keys()].some((k) => !known.has(k))) {
    return fail("INVALID_PARAMS", "Unknown attribute");
  }
  const time = (name: string) => {
    const v = attrs.get(name);
    return v === undefined ? undefined : parseMicros(v);
  };
  const before = time("before");
  const after = time("after");
  if (before === null || after === null) return fail("INVALID_PARAMS", "Not a timestamp");
  const limit = Number(attrs.get("limit") ?? 50);
  if (!Number.isInteger(limit) || limit < 1) return fail("INVALID_PARAMS", "Not a limit");
  const match = (attrs.get("text") ?? "").slice(0, 500);
  if (!match && !attrs.get("from")) return fail("INVALID_PARAMS", "Say what to search for");
  const page = await finder.forUser(scope.userId, {
    match: match || undefined,
    connectionId: scope.connectionId,
    conversationId: attrs.has("in") ? ircLower(attrs.get("in")!) : undefined,
    from: attrs.get("from") || undefined,
    before: before ?? undefined,
    after: after ?? undefined,
    limit: Math.min(limit, SEARCH_LIMIT),
  });
  const names = await conversationNames(store, scope);
  const batch = batchId("search");
  const out = [`BATCH +${batch} soju.im/search`];
  const messages = [...page.messages].sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);
  const replies = store.messages.history
    ? await repliesOf(store.messages.history, named(messages))
    : new Map<string, string>();
  for (const m of messages) {
    const folded = m.conversation_id ?? "";
    if (!folded || m.type === "error") continue;
    const conversation = names.get(folded) || folded;
    const ts = parseMicros(m.ts) ?? 0;
    const own = ircLower(m.from) === ircLower(scope.nick);
    const target = scope.isChannel(conversation) || own ? conversation : scope.nick;
    const body = m.type === "action" ? actionWrap(m.message) : m.message;
    const tags = new Map([
      ["batch", batch],
      ["time", new Date(Math.floor(ts / 1000)).toISOString()],
    ]);
    if (m.msgid) tags.set("msgid", m.msgid);
    if (m.reply_to) tags.set("+draft/reply", replies.get(m.reply_to) ?? m.reply_to);
    try {
      out.push(formatMessage({
        tags,
        prefix: m.from,
        command: m.type === "notice" ? "NOTICE" : "PRIVMSG",
        params: [target, body],
      }));
    } catch {
      // why: a stored line the writer refuses (it never should) is left out of the results only
    }
  }
  out.push(`BATCH -${batch}`);
  return out;
}

/** The messages as lines history names replies by (history/replies.ts): their msgid says where. */
function named(messages: MessageJson[]): Named[] {
  return messages.flatMap((m) => {
    const ref = m.msgid ? parseMsgid(m.msgid) : undefined;
    return ref
      ? [{
        conversation: ref.conversation,
        ts: ref.ms * 1000,
        serverMsgid: m.server_msgid,
        replyTo: m.reply_to,
      }]
      : [];
  });
}

/** The bound connection's conversations: their folded ids to their names as IRC spells them. */
async function conversationNames(store: Store, scope: SearchScope): Promise<Map<string, string>> {
  const connection = await store.connections.get(scope.userId, scope.connectionId);
  if (!connection) return new Map();
  const conversations = await store.conversations.listForConnection(connection.id, {
    unread: false,
  });
  return new Map(conversations.map((c) => [c.conversationId, c.name]));
}
