/** Server settings as key/JSON pairs, on either backend (store/settings.ts has the interface). */
import { DEFAULT_CONNECTION } from "../../config.ts";
import { defaultSettings, type SettingsStore } from "../settings.ts";
import { prepared, type TableDb } from "./db.ts";

/** The SettingsStore over a backend's executor. Every node reads them from the database. */
export function settingsStore(db: TableDb): SettingsStore {
  const { q } = db;
  const all = prepared(() => q.selectFrom("settings").select(["key", "value"]));
  return {
    async current(defaultConnection) {
      const stored: Record<string, unknown> = {};
      for (const row of await db.all(all())) {
        stored[row.key] = JSON.parse(row.value);
      }
      const out = defaultSettings(defaultConnection ?? DEFAULT_CONNECTION);
      // A stored value of the wrong type (older versions, hand edits) falls back to the default;
      // keys Parley does not know are left out.
      for (const [key, value] of Object.entries(out)) {
        if (typeof stored[key] === typeof value) Object.assign(out, { [key]: stored[key] });
      }
      return out;
    },
    async set(patch) {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        await db.run(
          q.insertInto("settings").values({ key, value: JSON.stringify(value) })
            .onConflict((c) =>
              c.column("key").doUpdateSet((e) => ({ value: e.ref("excluded.value") }))
            ),
        );
      }
    },
  };
}
