/** What users see of Parley's IRC rules: the private-address refusal, URLs as clients read them. */
import { assert, assertEquals } from "../support/assert.ts";
import { refusal } from "../../irc/socket/target.ts";
import { plainReason, privateRefusal } from "../../static/app/conn_error.ts";
import { dictionary } from "../../static/app/i18n.ts";
import { loadDictionaries } from "../../routes/i18n.ts";
import { parseIrcUrl, publicUrl } from "../../irc/url.ts";
import { fieldsFromUrl, urlFromFields } from "../../static/app/conn_url.ts";

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

Deno.test("Parley's connection form reads the irc://...?tls=1 URLs the API gives", () => {
  const shown = publicUrl("ircs://jane:pw@irc.libera.chat/%23parley?nick=jane&tls_verify=0");
  assertEquals(shown, "irc://jane:@irc.libera.chat:6697/%23parley?nick=jane&tls_verify=0&tls=1");
  const f = fieldsFromUrl(shown);
  assertEquals(
    [f.host, f.port, f.tls, f.tlsVerify, f.nick, f.login],
    ["irc.libera.chat", "6697", true, false, "jane", "jane"],
  );
  // Saved back unchanged, it means the same server and TLS as the stored ircs:// URL.
  const back = parseIrcUrl(urlFromFields(f));
  assertEquals([back.host, back.port, back.tls, back.tlsVerify], [
    "irc.libera.chat",
    6697,
    true,
    false,
  ]);
  const plain = fieldsFromUrl(publicUrl("ircs://h?tls=0"));
  assertEquals([plain.port, plain.tls], ["6667", false]);
});
