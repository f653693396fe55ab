import { assert, assertEquals } from "../support/assert.ts";
import { parseInput } from "../../static/app/commands.ts";
import { nickColor } from "../../static/app/nick_color.ts";
import { applyCompletion, nextCompletion, startCompletion } from "../../static/app/complete.ts";
import { EMPTY_FIELDS, fieldsFromUrl, urlFromFields } from "../../static/app/conn_url.ts";

Deno.test("commands: text, server commands, client commands, unknown, escaped slash", () => {
  assertEquals(parseInput("  "), { kind: "empty" });
  assertEquals(parseInput("hello\nworld"), { kind: "send", message: "hello\nworld" });
  assertEquals(parseInput("/ME waves"), { kind: "send", message: "/me waves", command: "me" });
  assertEquals(parseInput("/join #a key"), {
    kind: "send",
    message: "/join #a key",
    command: "join",
  });
  assertEquals(parseInput("/disconnect"), {
    kind: "send",
    message: "/disconnect",
    command: "disconnect",
  });
  assertEquals(parseInput("/search foo bar"), {
    kind: "client",
    command: "search",
    args: "foo bar",
  });
  assertEquals(parseInput("/frobnicate x"), { kind: "unknown", command: "frobnicate" });
  assertEquals(parseInput("//not a command"), { kind: "send", message: "//not a command" });
});

Deno.test("nick colour: stable, case-insensitive, differs between nicks", () => {
  assertEquals(nickColor("Alice"), nickColor("alice"));
  assertEquals(nickColor("bob"), nickColor("bob"));
  const hues = new Set(["alice", "bob", "carol", "dave", "eve", "mallory"].map(nickColor));
  assert(hues.size >= 5, "different nicks get different colours");
  assert(/^light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\)$/.test(nickColor("x")), nickColor("x"));
});

Deno.test("tab completion: nicks at the start get a colon, cycling wraps", () => {
  const nicks = ["bob", "Bobby", "alice"];
  let c = startCompletion("bo", 2, nicks, [])!;
  assertEquals(applyCompletion(c), { text: "bob: ", cursor: 5 });
  c = nextCompletion(c);
  assertEquals(applyCompletion(c).text, "Bobby: ");
  c = nextCompletion(c);
  assertEquals(applyCompletion(c).text, "bob: ");
  assertEquals(applyCompletion(startCompletion("hi al", 5, nicks, [])!).text, "hi alice ");
  assertEquals(startCompletion("zz", 2, nicks, []), null);
});

Deno.test("tab completion: commands at the start, channels anywhere, text after the cursor kept", () => {
  assertEquals(applyCompletion(startCompletion("/jo", 3, [], [])!).text, "/join ");
  assertEquals(startCompletion("x /jo", 5, [], []), null);
  const c = startCompletion("/join #pa later", 9, [], ["#parley", "#other"])!;
  assertEquals(applyCompletion(c), { text: "/join #parley later", cursor: 13 });
});

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
