/** The stored web client settings read back with the defaults under them, whatever was stored. */
import { assertEquals } from "../../support/assert.ts";
import { DEFAULT_CLIENT_SETTINGS } from "../../../protocol/client_settings.ts";
import { readClientSettings } from "../../../store/client_settings.ts";

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
