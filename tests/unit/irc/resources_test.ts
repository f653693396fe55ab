/** irc/resources.ts: a stored connection as the API shows it. */
import { assertEquals } from "../../support/assert.ts";
import { connectionJson } from "../../../irc/resources.ts";
import type { ConnectionRecord } from "../../../store/connections.ts";

const record = (url: string, nick: string): ConnectionRecord => ({
  id: 1,
  userId: 1,
  connectionId: "irc-example",
  name: "example",
  url,
  onConnectCommands: [],
  wantedState: "connected",
  nick,
  certFingerprint: "",
  created: 0,
});
const live = { state: "connected", info: {} };

Deno.test("connection resource: its URL names the nick the connection uses", () => {
  // Stored before a /nick renamed the URL too: the nick kept beside it is the one used.
  const old = record("irc://:pw@irc.example.org?nick=jane&realname=Jane%20Doe", "jane_away");
  assertEquals(
    connectionJson(old, live).url,
    "irc://irc.example.org?nick=jane_away&realname=Jane%20Doe",
  );
  const same = record("irc://irc.example.org?nick=jane", "jane");
  assertEquals(connectionJson(same, live).url, "irc://irc.example.org?nick=jane");
  // A URL naming no nick stays so (the nick is kept beside it).
  const none = record("irc://irc.example.org", "jane");
  assertEquals(connectionJson(none, live).url, "irc://irc.example.org");
});
