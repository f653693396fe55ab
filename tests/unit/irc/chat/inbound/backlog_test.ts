/**
 * Lines handed over and not yet recorded: a connection is held past its own bound or the
 * process's, and woken (not polled) once there is room.
 */
import { assert, assertEquals } from "../../../../support/assert.ts";
import { Backlog, PROCESS_MAX, processBacklog } from "../../../../../irc/chat/inbound/backlog.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("backlog: a connection over its bound waits, and is woken when it is under", async () => {
  const b = new Backlog();
  b.add(4);
  assertEquals(b.room(5), undefined, "room under the bound");
  b.add();
  let woken = false;
  b.room(5)!.then(() => woken = true);
  b.add(); // more still comes in (lines already handed over)
  b.done();
  await tick();
  assertEquals(woken, false, "still at the bound");
  b.done();
  await tick();
  assert(woken, "woken once under the bound");
  b.done(4);
  assertEquals(b.size, 0);
});

Deno.test("backlog: the whole process's bound holds every connection, and wakes them when down", async () => {
  const before = processBacklog();
  const busy = new Backlog();
  const quiet = new Backlog();
  busy.add(PROCESS_MAX - before);
  let woken = false;
  const held = quiet.room(10);
  assert(held, "a connection with nothing of its own is held by the process's backlog");
  held.then(() => woken = true);
  busy.done(PROCESS_MAX / 10);
  await tick();
  assertEquals(woken, false, "not before the process's backlog is well down");
  busy.done(PROCESS_MAX / 10);
  await tick();
  assert(woken, "woken once the process's backlog is down by a fifth");
  busy.done(busy.size);
  assertEquals(processBacklog(), before);
});

Deno.test("backlog: held by its own bound while the process's is full, woken when both have room", async () => {
  const before = processBacklog();
  const other = new Backlog();
  const mine = new Backlog();
  mine.add(5);
  other.add(PROCESS_MAX - before);
  let woken = false;
  mine.room(5)!.then(() => woken = true);
  mine.done(5); // under its own bound, but the process is still full
  await tick();
  assertEquals(woken, false);
  other.done(other.size);
  await tick();
  assert(woken, "woken once the process has room");
});

Deno.test("backlog: a connection held by its own bound only passes the process's", () => {
  const before = processBacklog();
  const busy = new Backlog();
  busy.add(PROCESS_MAX - before);
  const registering = new Backlog();
  assertEquals(registering.room(10, false), undefined, "its own bound has room");
  assert(registering.room(10), "the process's bound holds it otherwise");
  busy.done(busy.size);
});
