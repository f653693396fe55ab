/** Server settings as key/value pairs with JSON values, and their typed defaults. */

/** Every server setting, as `/api/settings` shows it (without disk usage). */
export interface ServerSettings {
  contact: string;
  default_connection: string;
  forced_connection: boolean;
  open_to_public: boolean;
  organization_name: string;
  organization_url: string;
  video_service: string;
  /** Most IRC connections an ordinary user may have (admins and the bot are not limited). */
  max_connections_per_user: number;
  /** Most conversations one connection keeps; past it new ones are refused (hostile servers). */
  max_conversations_per_connection: number;
  /** Let ordinary users connect to loopback, private and link-local addresses. */
  irc_allow_private: boolean;
  /** Give every newly registered user the default connection (the first run may turn it off). */
  new_user_connection: boolean;
  /** How long messages are kept (`365d`, `12w`, `1y`); "" or "0" keeps them all (protocol/retention.ts). */
  message_retention: string;
  /** Most bytes of files one user keeps (uploads, pastes); 0: no bound. */
  max_file_bytes_per_user: number;
}

/** The settings every server has until an admin changes them. */
export function defaultSettings(defaultConnection: string): ServerSettings {
  return {
    contact: "mailto:root@localhost",
    default_connection: defaultConnection,
    forced_connection: false,
    open_to_public: false,
    organization_name: "Parley",
    organization_url: "",
    video_service: "https://meet.jit.si/",
    max_connections_per_user: 20,
    max_conversations_per_connection: 1000,
    irc_allow_private: false,
    new_user_connection: true,
    message_retention: "",
    max_file_bytes_per_user: 1_000_000_000,
  };
}

/** Storage of server settings; read them typed, through `current`. */
export interface SettingsStore {
  /**
   * Every setting: the stored value, else the default. `defaultConnection` is the configured
   * default URL; callers that do not read `default_connection` may leave it out.
   */
  current(defaultConnection?: string): Promise<ServerSettings>;
  /** Writes the given keys; `undefined` values are left alone. */
  set(patch: Partial<ServerSettings>): Promise<void>;
}
