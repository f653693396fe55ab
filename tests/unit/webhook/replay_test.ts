import { assertEquals } from "../../support/assert.ts";
import { RecentKeys } from "../../../webhook/replay.ts";

Deno.test("webhook replay: keys are remembered within the window and the count", () => {
  const r = new RecentKeys(3, 1000);
  r.add(["a"], 0);
  assertEquals(r.seen(["a"], 999), true);
  assertEquals(r.seen(["x", "a"], 10), true, "any key matching is a replay");
  assertEquals(r.seen(["a"], 1000), false, "forgotten after the window");
  r.add(["b"], 1);
  r.add(["c"], 2);
  r.add(["d"], 3);
  assertEquals(r.seen(["a"], 4), false, "the oldest went past the count");
  assertEquals(r.seen(["b"], 4) && r.seen(["c"], 4) && r.seen(["d"], 4), true);
  r.forget(["c"]);
  assertEquals(r.seen(["c"], 4), false);
});
