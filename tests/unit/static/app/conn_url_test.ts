/** The connection form and its URL (static/app/conn_url.ts). */
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  EMPTY_FIELDS,
  fieldsFromUrl,
  nickFromEmail,
  prefill,
  urlFromFields,
  validPort,
} from "../../../../static/app/conn_url.ts";

Deno.test("connection URL: fields round-trip, TLS and SASL flags, password only when typed", () => {
  const f = {
    ...EMPTY_FIELDS,
    host: "irc.libera.chat",
    port: "6697",
    nick: "alice",
    username: "al",
    login: "alice",
    password: "p@ss word",
    sasl: "plain" as const,
  };
  const url = urlFromFields(f);
  assertEquals(
    url,
    "irc://alice:p%40ss%20word@irc.libera.chat:6697?tls=1&nick=alice&username=al&sasl=plain",
  );
  const back = fieldsFromUrl(
    "irc://alice:@irc.libera.chat:6697?tls=1&nick=alice&username=al&sasl=plain",
  );
  assertEquals(back, { ...f, password: "" });
  const plain = urlFromFields({
    ...EMPTY_FIELDS,
    host: "127.0.0.1",
    port: "6667",
    tls: false,
    nick: "n",
  });
  assertEquals(plain, "irc://127.0.0.1:6667?nick=n");
  assertEquals(fieldsFromUrl(plain).tls, false);
  assertEquals(fieldsFromUrl("ircs://h").tls, true);
});

Deno.test("connection form: port checked alone, nick from the email, profile prefill", () => {
  assert(validPort("") && validPort("6697") && validPort("1") && validPort("65535"));
  assert(!validPort("0") && !validPort("65536") && !validPort("66a") && !validPort("-1"));
  assertEquals(nickFromEmail("erin.k+irc@example.com"), "erinkirc");
  assertEquals(nickFromEmail("42@example.com"), "u42");
  const f = prefill(
    { ...EMPTY_FIELDS, host: "typed.example" },
    "irc://irc.libera.chat:6697?tls=1",
    "ann@x.y",
  );
  assertEquals(f.host, "typed.example", "what the user typed wins");
  assertEquals(f.port, "6697");
  assertEquals(f.nick, "ann");
});
