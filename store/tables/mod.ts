/**
 * The table groups written once for every backend, over its executor (db.ts): a backend's
 * mod.ts spreads them into its Store beside what it writes by hand (messages, conversations'
 * unread counts, files' contents).
 */
import type { TableDb } from "./db.ts";
import { type SharedUserStore, userStore } from "./users.ts";
import { sessionStore } from "./sessions.ts";
import { appTokenStore } from "./app_tokens.ts";
import { certfpStore } from "./certfp.ts";
import { settingsStore } from "./settings.ts";
import { profileStore } from "./profiles.ts";
import { connectionStore } from "./connections.ts";
import { pushStore } from "./push.ts";
import { ignoreStore, type SharedIgnoreStore } from "./ignores.ts";
import { type FileContents, fileStore } from "./files.ts";
import type { Store } from "../mod.ts";

/** The groups of `Store` written once; `bump` on users and ignores reloads their caches. */
type TableGroups =
  & Pick<
    Store,
    | "sessions"
    | "appTokens"
    | "certfp"
    | "settings"
    | "profiles"
    | "connections"
    | "push"
    | "files"
  >
  & { users: SharedUserStore; ignores: SharedIgnoreStore };

/** Every shared table group over `db`, files with the backend's `contents`. */
export function tableGroups(db: TableDb, contents: FileContents): TableGroups {
  const settings = settingsStore(db);
  const quota = async () => (await settings.current()).max_file_bytes_per_user;
  return {
    users: userStore(db),
    sessions: sessionStore(db),
    appTokens: appTokenStore(db),
    certfp: certfpStore(db),
    settings,
    profiles: profileStore(db),
    connections: connectionStore(db),
    push: pushStore(db),
    ignores: ignoreStore(db),
    files: fileStore(db, contents, quota),
  };
}
