import { assertEquals } from "../../../support/assert.ts";
import { stateMessage } from "../../../../irc/chat/state_message.ts";
import type { IrcConnection } from "../../../../irc/engine/connection.ts";

/** A connection down for `reason`, to be tried again in `retry` ms. */
const down = (reason: string | undefined, retry?: number) =>
  ({
    url: { host: "irc.example.test" },
    state: "disconnected",
    info: { reason, retry_in_ms: retry },
  }) as unknown as IrcConnection;

Deno.test("state message: why it is down, in sentences, then when it tries again", () => {
  assertEquals(
    stateMessage(down("Connection refused (os error 111)", 900)),
    "Connection refused. Reconnecting in about 1s.",
  );
  assertEquals(
    stateMessage(down("Registration timed out.", 4200)),
    "Registration timed out. Reconnecting in about 5s.",
  );
  assertEquals(stateMessage(down("Closed by the server")), "Closed by the server.");
  assertEquals(stateMessage(down(undefined)), "Disconnected.");
});
