/** What a client's line costs against its pacing: CHATHISTORY a twentieth, however written. */
import { assertEquals } from "../support/assert.ts";
import { lineCost } from "../../bouncer/limits.ts";

Deno.test("lineCost: CHATHISTORY is cheap, with tags, a source or in lower case", () => {
  assertEquals(lineCost("CHATHISTORY LATEST #a * 50"), 0.05);
  assertEquals(lineCost("@label=7 CHATHISTORY LATEST #a * 50"), 0.05);
  assertEquals(lineCost("@label=7 :me chathistory TARGETS a b 5"), 0.05);
  assertEquals(lineCost("PRIVMSG #a :CHATHISTORY"), 1);
  assertEquals(lineCost("@label=7"), 1);
  assertEquals(lineCost(""), 1);
});
