import { assertEquals } from "../../../support/assert.ts";
import { groupResults, isReservedHost } from "../../../../static/app/util.ts";
import { chatPath, parseRoute } from "../../../../static/app/router.ts";

Deno.test("search results are grouped by conversation, newest first within each", () => {
  const m = (conv: string, ts: string) => ({
    from: "bob",
    message: "x",
    ts,
    connection_id: "irc-a",
    conversation_id: conv,
  });
  const groups = groupResults([m("#a", "3"), m("#b", "2"), m("#a", "1")]);
  assertEquals(groups.map((g) => g.title), ["#a · irc-a", "#b · irc-a"]);
  assertEquals(groups[0].items.map((i) => i.ts), ["3", "1"]);
});

Deno.test("no preview lookups for names that cannot resolve publicly", () => {
  assertEquals(isReservedHost("https://example.invalid/x"), true);
  assertEquals(isReservedHost("http://localhost:8080/"), true);
  assertEquals(isReservedHost("https://example.com/"), true);
  assertEquals(isReservedHost("https://github.com/x"), false);
});

Deno.test("routes: conversation paths encode channel names and read back", () => {
  assertEquals(chatPath("irc-a", "#b/c"), "/chat/irc-a/%23b%2Fc");
  assertEquals(chatPath("irc-a", ""), "/chat/irc-a");
  assertEquals(
    chatPath("irc-a", "#x", "2026-01-01T00:00:00.000001Z"),
    "/chat/irc-a/%23x?around=2026-01-01T00%3A00%3A00.000001Z",
  );
  const r = parseRoute("/chat/irc-a/%23b%2Fc?around=t");
  assertEquals(r.parts, ["chat", "irc-a", "#b/c"]);
  assertEquals(r.params.get("around"), "t");
});
