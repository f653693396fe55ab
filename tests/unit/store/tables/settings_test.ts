/** Server settings: typed reads with the defaults of one place, against a real SQLite database. */
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../../../support/assert.ts";
import { defaultSettings } from "../../../../store/settings.ts";
import { sqliteTables } from "../../../../store/sqlite/tables.ts";
import { settingsStore } from "../../../../store/tables/settings.ts";

function store() {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  return { db, settings: settingsStore(sqliteTables(db)) };
}

Deno.test("settings: stored values over the defaults; a wrong type or unknown key is not read", async () => {
  const { db, settings } = store();
  const defaults = defaultSettings("irc://irc.example.org");
  assertEquals(await settings.current("irc://irc.example.org"), defaults);
  await settings.set({ open_to_public: true, max_connections_per_user: 3, contact: undefined });
  // Hand edits and older versions: a string where a boolean belongs, a key nobody reads.
  db.prepare("INSERT INTO settings (key, value) VALUES (?, ?)").run("forced_connection", '"yes"');
  db.prepare("INSERT INTO settings (key, value) VALUES (?, ?)").run("stale_key", "1");
  const current = await settings.current("irc://irc.example.org");
  assertEquals(current, { ...defaults, open_to_public: true, max_connections_per_user: 3 });
  assertEquals("stale_key" in current, false);
});
