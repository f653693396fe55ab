/** Server settings as key/value pairs with JSON values. */
import type { DatabaseSync } from "node:sqlite";

/** Storage of server settings. */
export interface SettingsStore {
  all(): Promise<Record<string, unknown>>;
  /** Writes the given keys; `undefined` values are left alone. */
  set(patch: Record<string, unknown>): Promise<void>;
}

/** The SQLite implementation of SettingsStore. */
export function sqliteSettingsStore(db: DatabaseSync): SettingsStore {
  const all = db.prepare("SELECT key, value FROM settings");
  const upsert = db.prepare(
    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );
  return {
    all() {
      const out: Record<string, unknown> = {};
      for (const row of all.all() as { key: string; value: string }[]) {
        out[row.key] = JSON.parse(row.value);
      }
      return Promise.resolve(out);
    },
    set(patch) {
      for (const [key, value] of Object.entries(patch)) {
        if (value !== undefined) upsert.run(key, JSON.stringify(value));
      }
      return Promise.resolve();
    },
  };
}
