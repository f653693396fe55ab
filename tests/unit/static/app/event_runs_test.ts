import { assertEquals } from "../../../support/assert.ts";
import { groupRuns, quietKind } from "../../../../static/app/event_runs.ts";
import type { Message } from "../../../../static/app/types.ts";

let n = 0;
const at = () => new Date(Date.UTC(2026, 10, 23, 12, 0, n++)).toISOString();
const said = (text: string): Message => ({ from: "bob", message: text, ts: at(), type: "private" });
const live = (event: string, text: string): Message => ({
  from: "",
  message: text,
  ts: at(),
  event,
});
const stored = (type: Message["type"], nick: string): Message => ({
  from: nick,
  message: `${nick} did ${type}.`,
  ts: at(),
  type,
});

Deno.test("quiet kinds: live event lines and stored channel events alike", () => {
  assertEquals(quietKind(live("join", "a joined")), "joined");
  assertEquals(quietKind(stored("join", "a")), "joined");
  assertEquals(quietKind(stored("quit", "a")), "left");
  assertEquals(quietKind(stored("kick", "a")), "left");
  assertEquals(quietKind(live("part", "a left")), "left");
  assertEquals(quietKind(stored("nick_change", "a")), "renamed");
  assertEquals(quietKind(live("topic", "topic")), undefined);
  assertEquals(quietKind(stored("mode", "a")), undefined);
  assertEquals(quietKind(said("hi")), undefined);
});

Deno.test("runs: two or more quiet events collapse; messages and breaks end a run", () => {
  const list = [
    said("one"),
    stored("join", "a"),
    stored("join", "b"),
    live("join", "c joined"),
    stored("part", "a"),
    stored("quit", "b"),
    said("two"),
    stored("join", "d"),
    said("three"),
    stored("nick_change", "e"),
    stored("join", "f"),
  ];
  const items = groupRuns(list, "condense");
  assertEquals(items.map((i) => i.kind), ["line", "run", "line", "line", "line", "run"]);
  const first = items[1];
  if (first.kind !== "run") throw new Error("a run");
  assertEquals(first.counts, { joined: 3, left: 2, renamed: 0 });
  assertEquals(first.lines.length, 5);
  assertEquals(first.key, "r" + list[1].ts);
  // A lone event stays a line.
  assertEquals(items[3], { kind: "line", m: list[7] });

  assertEquals(groupRuns(list, "show").length, list.length);
  assertEquals(
    groupRuns(list, "hide").map((i) => i.kind === "line" && i.m.message),
    ["one", "two", "three"],
  );
  // A break (a new day, the new-messages marker) ends the run before it.
  const split = groupRuns(list.slice(1, 6), "condense", (_p, m) => m === list[4]);
  assertEquals(split.map((i) => i.kind === "run" ? i.lines.length : 1), [3, 2]);
});
