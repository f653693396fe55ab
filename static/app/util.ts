/** Small pure helpers of the client, kept apart from the components so unit tests can load them. */
import type { Message } from "./types.ts";

/** Groups results by connection and conversation, keeping the newest-first order. */
export function groupResults(list: Message[]): { key: string; title: string; items: Message[] }[] {
  const groups = new Map<string, { key: string; title: string; items: Message[] }>();
  for (const m of list) {
    const key = `${m.connection_id}/${m.conversation_id}`;
    let g = groups.get(key);
    if (!g) {
      g = { key, title: `${m.conversation_id || m.connection_id} · ${m.connection_id}`, items: [] };
      groups.set(key, g);
    }
    g.items.push(m);
  }
  return [...groups.values()];
}

/** Names that never resolve on the public internet (RFC 2606, 6761): not worth asking about. */
export function isReservedHost(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === "localhost" || /\.(test|example|invalid|localhost)$/.test(host) ||
      /^(example\.(com|net|org))$/.test(host);
  } catch {
    return true;
  }
}
