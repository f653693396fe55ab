/**
 * Every capability the listener offers that needs the server is asked of it: a scripted server
 * offers all of them, and Parley's CAP REQ names each (read from the capability table, so a new
 * row is covered without touching this test).
 */
import { assert } from "../support/assert.ts";
import { setupBouncerOn } from "../support/bouncer.ts";
import { startHostileIrc } from "../support/hostile_irc.ts";
import { UPSTREAM_CAPS } from "../../bouncer/caps.ts";

Deno.test("bouncer caps: what the table needs upstream is requested from the server", async () => {
  const irc = startHostileIrc({ caps: [...UPSTREAM_CAPS, "labeled-response"] });
  const s = await setupBouncerOn(irc.url);
  try {
    const req = await irc.clients[0].waitFor((l) => l.startsWith("CAP REQ"));
    const asked = req.replace(/^CAP REQ :?/, "").split(" ");
    for (const cap of UPSTREAM_CAPS) assert(asked.includes(cap), `${cap} in ${req}`);
    assert(asked.includes("labeled-response"), "labeled-response, to route answers");
  } finally {
    await s.close();
    await irc.close();
  }
});
