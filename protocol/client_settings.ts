/**
 * The web client's settings of a user (theme, layout, clock, completion, joins and parts, pinned
 * conversations): one JSON object per user, so that they follow the user to every device. The
 * server keeps them (store/client_settings.ts reads them back) and tells every device of a change;
 * only the web client reads them.
 */

/** How joins, parts, quits and nick changes show. */
export const JOIN_PARTS = ["show", "condense", "hide"] as const;
export type JoinParts = (typeof JOIN_PARTS)[number];

/** A conversation of one of the user's connections. */
interface Where {
  connection_id: string;
  conversation_id: string;
}

/** Every setting (the API's names). */
export interface ClientSettings {
  theme: "system" | "light" | "dark";
  compact: boolean;
  clock24: boolean;
  seconds: boolean;
  embeds: boolean;
  join_parts: JoinParts;
  nick_suffix: string;
  join_parts_networks: { connection_id: string; join_parts: JoinParts }[];
  join_parts_conversations: (Where & { join_parts: JoinParts })[];
  pinned: Where[];
  /**
   * How many times the user's settings were saved: a copy with a larger one is newer. A device
   * may be told of its own saves after their answers, and of two saves in either order.
   */
  revision: number;
}

/** What a save may change: every setting but the revision, which the server counts. */
export type ClientSettingsChange = Partial<Omit<ClientSettings, "revision">>;

/** Bounds of what one user may keep: a settings object, not a store of anything else. */
export const CLIENT_SETTINGS_LIMITS = {
  id: 200,
  suffix: 8,
  networks: 100,
  conversations: 1000,
  pinned: 200,
};

/** What a user has before saving anything. */
export const DEFAULT_CLIENT_SETTINGS: ClientSettings = {
  theme: "system",
  compact: false,
  clock24: true,
  seconds: false,
  embeds: true,
  join_parts: "condense",
  nick_suffix: ": ",
  join_parts_networks: [],
  join_parts_conversations: [],
  pinned: [],
  revision: 0,
};
