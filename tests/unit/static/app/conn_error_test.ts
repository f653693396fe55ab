/** Connection errors in plain words (static/app/conn_error.ts). */
import { assertEquals } from "../../../support/assert.ts";
import { plainReason } from "../../../../static/app/conn_error.ts";

Deno.test("connection errors: known reasons in plain words, others as they are", () => {
  assertEquals(
    plainReason("connect ECONNREFUSED 127.0.0.1:6667"),
    "Connection refused: nothing listens on that port.",
  );
  assertEquals(
    plainReason("Client network socket disconnected before secure TLS connection was established"),
    "TLS handshake failed: is this a plain-text port?",
  );
  assertEquals(
    plainReason("getaddrinfo ENOTFOUND irc.nowhere.test", "irc.nowhere.test"),
    "Unknown host: irc.nowhere.test",
  );
  // Parley's own look-up before it connects (irc/socket/target.ts).
  assertEquals(
    plainReason("Could not resolve irc.nowhere.test.", "irc.nowhere.test"),
    "Unknown host: irc.nowhere.test",
  );
  assertEquals(plainReason("Password incorrect"), "The server refused the password.");
  assertEquals(plainReason("Closing link: too many clones"), "Closing link: too many clones");
  assertEquals(plainReason(undefined), "");
});

Deno.test("connection errors: a reason in quotes is shown without them; the user's own disconnect said so", () => {
  assertEquals(plainReason('"Closing link: gone"'), "Closing link: gone");
  assertEquals(
    plainReason('"Disconnected by the user."'),
    "You disconnected it. /connect connects it again.",
  );
});
