/** What users see of Parley's IRC rules: the private-address refusal, URLs as clients read them. */
import { assert, assertEquals } from "../../support/assert.ts";
import { refusal } from "../../../irc/socket/target.ts";
import { plainReason, privateRefusal } from "../../../static/app/conn_error.ts";
import { dictionary } from "../../../static/app/i18n.ts";
import { loadDictionaries } from "../../../routes/i18n.ts";
import { parseIrcUrl, publicUrl } from "../../../irc/url.ts";
import { fieldsFromUrl, urlFromFields } from "../../../static/app/conn_url.ts";
import { Presence } from "../../../irc/chat/presence.ts";
import { fingerprint, selfSigned } from "../../../lib/self_signed.ts";
import { createPrivateKey, X509Certificate } from "node:crypto";

const ROOT = new URL("../../..", import.meta.url).pathname;

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

Deno.test("presence: a rejoin starts the list afresh, /names waits for the server's NAMES", async () => {
  const p = new Presence();
  p.joined("#a");
  p.join("#a", "jane", "Jane");
  p.names("#a", [{ id: "jane", nick: "Jane", modes: [] }, {
    id: "bob",
    nick: "Bob",
    modes: ["o"],
  }]);
  p.mode("#a", "jane", "v", true, ["o", "v"]);
  p.mode("#a", "jane", "o", true, ["o", "v"]);
  assertEquals(await p.members("#a"), [
    { nick: "Jane", modes: ["o", "v"] },
    { nick: "Bob", modes: ["o"] },
  ]);
  // Back after a reconnect: until NAMES ends, /names waits rather than answer a partial list.
  p.joined("#a");
  p.join("#a", "jane", "Jane");
  let answered: unknown;
  const asked = p.members("#a").then((m) => answered = m);
  await Promise.resolve();
  assertEquals(answered, undefined, "no answer before NAMES ended");
  p.names("#a", [{ id: "jane", nick: "Jane", modes: ["o"] }, {
    id: "carol",
    nick: "carol",
    modes: [],
  }]);
  await asked;
  assertEquals(answered, [{ nick: "Jane", modes: ["o"] }, { nick: "carol", modes: [] }]);
  p.rename("carol", "dave", "Dave");
  assertEquals((await p.members("#a"))?.map((m) => m.nick), ["Jane", "Dave"]);
  assertEquals(await p.members("#unknown"), undefined, "not joined: ask the server");
});

Deno.test("self-signed client certificates: valid X.509, each its own, fingerprint as Convos's", async () => {
  const a = await selfSigned("jane");
  const b = await selfSigned("jane");
  const x = new X509Certificate(a.cert);
  assertEquals(x.subject, "CN=jane");
  assert(x.verify(x.publicKey), "signed by its own key");
  assert(x.checkPrivateKey(createPrivateKey(a.key)), "the key is the certificate's");
  assertEquals(fingerprint(a.cert), x.fingerprint512.replaceAll(":", "").toLowerCase());
  assert(/^[0-9a-f]{128}$/.test(fingerprint(a.cert)));
  assert(fingerprint(a.cert) !== fingerprint(b.cert), "a new key pair each time");
  assert(new Date(x.validTo).getTime() > Date.now() + 3000 * 86_400_000, "years ahead");
});
