/**
 * What only the settings screens change of the user's display choices (prefs.ts): the general
 * ones, and how joins and parts show per conversation and per network. Apart from prefs.ts so that
 * the page's first script does not carry it.
 */
import { type JoinParts, saveSettings, settings } from "./prefs.ts";

/** Saves how joins and parts are shown (everywhere that has no choice of its own). */
export function setJoinParts(mode: JoinParts): Promise<void> {
  return saveSettings({ join_parts: mode });
}

/** Saves a choice and applies it at once. */
export function setPref(name: "compact" | "clock24" | "seconds" | "embeds", on: boolean) {
  return saveSettings({ [name]: on });
}

/** The conversation's own choice (`conv`), or its connection's (`conv` null); null: none. */
export function ownJoinParts(cid: string, conv: string | null): JoinParts | null {
  const s = settings.value;
  return (conv === null
    ? s.join_parts_networks.find((x) => x.connection_id === cid)
    : s.join_parts_conversations.find((x) => x.connection_id === cid && x.conversation_id === conv))
    ?.join_parts ?? null;
}

/** Chooses for a conversation (`conv`) or a connection (`conv` null); null follows the default. */
export function setOwnJoinParts(
  cid: string,
  conv: string | null,
  mode: JoinParts | null,
): Promise<void> {
  const s = settings.value;
  if (conv === null) {
    const rest = s.join_parts_networks.filter((x) => x.connection_id !== cid);
    return saveSettings({
      join_parts_networks: mode ? [...rest, { connection_id: cid, join_parts: mode }] : rest,
    });
  }
  const rest = s.join_parts_conversations.filter((x) =>
    x.connection_id !== cid || x.conversation_id !== conv
  );
  return saveSettings({
    join_parts_conversations: mode
      ? [...rest, { connection_id: cid, conversation_id: conv, join_parts: mode }]
      : rest,
  });
}
