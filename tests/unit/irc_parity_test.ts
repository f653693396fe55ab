/** What users see of Parley's IRC rules: the private-address refusal and its translation. */
import { assert, assertEquals } from "../support/assert.ts";
import { refusal } from "../../irc/socket/target.ts";
import { plainReason, privateRefusal } from "../../static/app/conn_error.ts";
import { dictionary } from "../../static/app/i18n.ts";
import { loadDictionaries } from "../../routes/i18n.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

Deno.test("private address refusal: says what to do, and the client translates it", async () => {
  const text = refusal("10.0.0.1", "10.0.0.1", "private");
  assertEquals(
    text,
    "10.0.0.1 is a private address: ask an admin to turn on 'Users may connect to private addresses' in the server settings.",
  );
  const named = refusal("irc.lan", "192.168.1.2", "private");
  assert(named.startsWith("irc.lan (192.168.1.2) is a private address: ask an admin"), named);
  // The client's key is the API's sentence with placeholders: the two move together.
  const { dictionaries } = await loadDictionaries(`${ROOT}i18n`);
  dictionary.value = dictionaries.get("de")!;
  try {
    const de = privateRefusal(text)!;
    assert(de.startsWith("10.0.0.1 ist keine öffentliche Adresse (private)"), de);
    assert(de.includes("Benutzer dürfen private Adressen erreichen"), de);
    assertEquals(plainReason(text), de, "a connection's reason reads the same");
    assertEquals(privateRefusal("Connection refused"), undefined);
  } finally {
    dictionary.value = {};
  }
  assertEquals(privateRefusal(text), text, "English is the API's text itself");
});
