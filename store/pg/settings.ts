/** Server settings in PostgreSQL: the same key/JSON pairs as SQLite (store/settings.ts). */
import { DEFAULT_CONNECTION } from "../../config.ts";
import { defaultSettings, type SettingsStore } from "../settings.ts";
import { pgString, type Sql } from "./db.ts";

/** The PostgreSQL implementation of SettingsStore. Every node reads them from the database. */
export function pgSettingsStore(sql: Sql): SettingsStore {
  return {
    async current(defaultConnection) {
      const stored: Record<string, unknown> = {};
      for (const row of await sql`SELECT key, value FROM settings`) {
        stored[row.key] = JSON.parse(row.value);
      }
      const out = defaultSettings(defaultConnection ?? DEFAULT_CONNECTION);
      // A stored value of the wrong type falls back to the default; unknown keys are left out.
      for (const [key, value] of Object.entries(out)) {
        if (typeof stored[key] === typeof value) Object.assign(out, { [key]: stored[key] });
      }
      return out;
    },
    async set(patch) {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        await sql`INSERT INTO settings (key, value) VALUES (${key}, ${
          pgString(JSON.stringify(value))
        })
          ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
      }
    },
  };
}
