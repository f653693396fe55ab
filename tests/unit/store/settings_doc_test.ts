/** docs/configuration.md's table of server settings says what store/settings.ts does. */
import { assertEquals } from "../../support/assert.ts";
import { defaultSettings } from "../../../store/settings.ts";

const DOC = new URL("../../../docs/configuration.md", import.meta.url);

/** The documented default of each setting, read from the table's rows. */
async function documented(): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const line of (await Deno.readTextFile(DOC)).split("\n")) {
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    if (cells.length !== 3 || !cells[0].startsWith("`")) continue;
    const names = cells[0].split(",").map((n) => n.trim().replaceAll("`", ""));
    const defaults = cells[1].split(",").map((d) => d.trim());
    names.forEach((name, i) => {
      const d = defaults[i] ?? "";
      const value = d === "empty" ? "" : d.replaceAll("`", "");
      out.set(name, /^(true|false|\d+)$/.test(value) ? JSON.parse(value) : value);
    });
  }
  return out;
}

Deno.test("every server setting is documented with its default", async () => {
  const docs = await documented();
  const defaults = defaultSettings("irc://example.org");
  for (const [name, value] of Object.entries(defaults)) {
    // The default connection comes from the environment, and the table says so.
    const expected = name === "default_connection" ? "PARLEY_DEFAULT_CONNECTION" : value;
    assertEquals(docs.get(name), expected, name);
  }
});
