import { assertEquals } from "../../support/assert.ts";
import { MONITOR_CAP, MonitorLists, targetLines } from "../../../bouncer/monitor.ts";

Deno.test("MonitorLists: the server watches the union, each client its own", () => {
  const m = new MonitorLists<string>();
  assertEquals(m.active, false);
  assertEquals(m.add("a", ["bob", "carol"], 0), {
    ask: ["bob", "carol"],
    online: [],
    offline: [],
    full: [],
  });
  assertEquals(m.active, true);
  // Known statuses answer a second watcher at once; only a new nick is asked.
  assertEquals(m.told(true, ["Bob!b@host"]).get("a"), ["Bob!b@host"]);
  m.told(false, ["carol"]);
  assertEquals(m.add("b", ["BOB", "carol", "dave"], 0), {
    ask: ["dave"],
    online: ["Bob!b@host"],
    offline: ["carol"],
    full: [],
  });
  // A nick nobody asked for is no one's news.
  assertEquals(m.told(true, ["mallory!m@h"]).size, 0);
  assertEquals([...m.told(false, ["bob", "dave"])], [["a", ["bob"]], ["b", ["bob", "dave"]]]);
  assertEquals(m.list("b"), ["BOB", "carol", "dave"]);
  assertEquals(m.statuses("a"), { online: [], offline: ["bob", "carol"] });
  // The server forgets a nick only when no client watches it.
  assertEquals(m.remove("a", ["bob", "nobody"]), []);
  assertEquals(m.clear("b"), ["bob", "dave"]);
  assertEquals(m.watched(), ["carol"]);
  assertEquals(m.clear("a"), ["carol"]);
  assertEquals(m.active, false);
});

Deno.test("MonitorLists: limits, refusals, a new registration", () => {
  const m = new MonitorLists<string>();
  assertEquals(m.add("a", ["x", "y", "z"], 2).full, ["z"]);
  const many = Array.from({ length: MONITOR_CAP + 5 }, (_, i) => `n${i}`);
  assertEquals(m.add("b", many, 0).full.length, 5, "a server without a limit still has Parley's");
  m.told(true, ["x!u@h"]);
  // The server refused y: off every list, told to those that had it.
  m.add("c", ["y"], 0);
  assertEquals([...m.refused(["y"])], [["a", ["y"]], ["c", ["y"]]]);
  assertEquals(m.list("a"), ["x"]);
  assertEquals(m.list("c"), []);
  m.reconnected();
  assertEquals(m.statuses("a"), { online: [], offline: [] }, "statuses of the old registration");
  assertEquals(m.watched().length, MONITOR_CAP + 1);
});

Deno.test("MonitorLists.targets and targetLines: junk out, lines bounded", () => {
  assertEquals(MonitorLists.targets("bob,,carol, x,a!b@c,*," + "n".repeat(65)), ["bob", "carol"]);
  assertEquals(MonitorLists.targets(undefined), []);
  const nicks = Array.from({ length: 100 }, (_, i) => `nickname${i}`);
  const lines = targetLines(nicks);
  assertEquals(lines.join(",").split(","), nicks);
  for (const l of lines) assertEquals(l.length <= 400, true, l);
  assertEquals(targetLines([]), []);
});
