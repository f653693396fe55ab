/** The stored web client settings read back with the defaults under them, whatever was stored. */
import { assertEquals } from "../../support/assert.ts";
import { DEFAULT_CLIENT_SETTINGS } from "../../../protocol/client_settings.ts";
import { readClientSettings, savedClientSettings } from "../../../store/client_settings.ts";

Deno.test("client settings: the stored keys over the defaults, nothing else", () => {
  assertEquals(readClientSettings("{}"), DEFAULT_CLIENT_SETTINGS);
  assertEquals(readClientSettings('{"compact":true,"gone":1}'), {
    ...DEFAULT_CLIENT_SETTINGS,
    compact: true,
  });
  for (const junk of ["", "not json", "[]", "null", "3"]) {
    assertEquals(readClientSettings(junk), DEFAULT_CLIENT_SETTINGS, junk);
  }
});

Deno.test("client settings: a save replaces the keys sent and counts one revision more", () => {
  const first = JSON.parse(savedClientSettings("{}", { compact: true }));
  assertEquals(first, { ...DEFAULT_CLIENT_SETTINGS, compact: true, revision: 1 });
  const second = JSON.parse(savedClientSettings(JSON.stringify(first), { theme: "dark" }));
  assertEquals(second, { ...first, theme: "dark", revision: 2 });
  // A stored revision that is not a count (never written by the API) starts over at 1.
  for (const bad of ['{"revision":-3}', '{"revision":"7"}', '{"revision":1.5}']) {
    assertEquals(JSON.parse(savedClientSettings(bad, {})).revision, 1, bad);
  }
});
