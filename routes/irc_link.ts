/**
 * Where an irc:// link leads a logged-in user (`GET /register?uri=...`, the address browsers open
 * for a registered irc:// handler), as Convos decides: the conversation when the user has it, the
 * conversation's settings when they have the connection, else the add-connection form.
 */
import { ircLower } from "../lib/casefold.ts";
import { isListed } from "../irc/chat/record.ts";
import type { Store } from "../store/mod.ts";

/** Longest link followed; a longer one is no link of an IRC network. */
const MAX_URI = 2000;

/** Names of this machine: a link to one of them is a link to any other. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

/** The link's host and first path part (a conversation, its key cut off), or undefined. */
function parseIrcLink(uri: string): { host: string; conversation: string } | undefined {
  if (uri.length > MAX_URI) return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== "irc:" && url.protocol !== "ircs:" || !url.hostname) return undefined;
  let first = url.pathname.split("/")[1] ?? "";
  try {
    first = decodeURIComponent(first);
  } catch {
    return undefined;
  }
  // `irc://host/#channel key`: the key is no part of the conversation's name.
  return { host: url.hostname.toLowerCase(), conversation: first.split(/\s/)[0] };
}

function sameHost(a: string, b: string): boolean {
  return a === b || (LOOPBACK.test(a) && LOOPBACK.test(b));
}

/**
 * The path (below the base URL, without its leading slash) an irc:// link leads user `userId`
 * to, or undefined when `uri` is no irc:// link.
 */
export async function ircLinkPath(
  store: Store,
  userId: number,
  uri: string,
): Promise<string | undefined> {
  const link = parseIrcLink(uri);
  if (!link) return undefined;
  for (const connection of await store.connections.list(userId)) {
    let host: string;
    try {
      host = new URL(connection.url).hostname.toLowerCase();
    } catch {
      continue;
    }
    if (!sameHost(host, link.host)) continue;
    const conversation = link.conversation
      ? await store.conversations.get(connection.id, ircLower(link.conversation))
      : undefined;
    if (conversation && isListed(conversation)) {
      return `chat/${encodeURIComponent(connection.connectionId)}/${
        encodeURIComponent(conversation.conversationId)
      }`;
    }
    const query = new URLSearchParams({
      connection_id: connection.connectionId,
      conversation_id: link.conversation,
    });
    return `settings/conversation?${query}`;
  }
  return `settings/connection/add?uri=${encodeURIComponent(uri)}`;
}
