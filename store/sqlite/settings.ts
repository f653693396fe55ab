/** Server settings in SQLite (store/settings.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
import { DEFAULT_CONNECTION } from "../../config.ts";
import { defaultSettings, type SettingsStore } from "../settings.ts";

/** The SQLite implementation of SettingsStore. */
export function sqliteSettingsStore(db: DatabaseSync): SettingsStore {
  const all = db.prepare("SELECT key, value FROM settings");
  const upsert = db.prepare(
    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );
  const read = () => {
    const out: Record<string, unknown> = {};
    for (const row of all.all() as { key: string; value: string }[]) {
      out[row.key] = JSON.parse(row.value);
    }
    return out;
  };
  return {
    current(defaultConnection) {
      const stored = read();
      const out = defaultSettings(defaultConnection ?? DEFAULT_CONNECTION);
      // A stored value of the wrong type (older versions, hand edits) falls back to the default;
      // keys Parley does not know are left out.
      for (const [key, value] of Object.entries(out)) {
        if (typeof stored[key] === typeof value) Object.assign(out, { [key]: stored[key] });
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
