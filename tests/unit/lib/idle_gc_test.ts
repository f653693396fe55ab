import { assertEquals } from "../../support/assert.ts";
import { IdleCollector } from "../../../lib/idle_gc.ts";
import { ManualClock } from "../../support/manual_clock.ts";

Deno.test("idle gc: collects once every burst has been quiet, never during one", () => {
  const clock = new ManualClock();
  let collected = 0;
  const c = new IdleCollector(() => collected++, 20, 0, clock);
  c.started();
  c.started(); // a second connection's burst
  c.ended();
  clock.advance(60);
  assertEquals(collected, 0, "one burst is still under way");
  c.ended();
  clock.advance(19);
  assertEquals(collected, 0, "not before the quiet time");
  clock.advance(1);
  assertEquals(collected, 1, "collected once after the last burst ended");
  clock.advance(60);
  assertEquals(collected, 1, "and only once");
});

Deno.test("idle gc: a burst that starts in the quiet time puts the collection off", () => {
  const clock = new ManualClock();
  let collected = 0;
  const c = new IdleCollector(() => collected++, 40, 0, clock);
  c.started();
  c.ended();
  clock.advance(10);
  c.started();
  clock.advance(80);
  assertEquals(collected, 0);
  c.ended();
  clock.advance(80);
  assertEquals(collected, 1);
});

Deno.test("idle gc: collections are kept apart", () => {
  const clock = new ManualClock();
  let collected = 0;
  const c = new IdleCollector(() => collected++, 5, 150, clock);
  c.started();
  c.ended();
  clock.advance(40);
  assertEquals(collected, 1);
  c.started();
  c.ended();
  clock.advance(40);
  assertEquals(collected, 1, "too soon after the last one");
  clock.advance(200);
  assertEquals(collected, 2, "done once the gap has passed");
});

Deno.test("idle gc: a burst for a given time collects after it and the quiet time", () => {
  const clock = new ManualClock();
  let collected = 0;
  const c = new IdleCollector(() => collected++, 10, 0, clock);
  c.burstFor(40);
  clock.advance(49);
  assertEquals(collected, 0);
  clock.advance(1);
  assertEquals(collected, 1);
});

Deno.test("idle gc: hooks run before each collection until removed", () => {
  const clock = new ManualClock();
  const order: string[] = [];
  const c = new IdleCollector(() => order.push("gc"), 5, 0, clock);
  const stop = c.beforeCollect(() => order.push("shrink"));
  c.burstFor(0);
  clock.advance(40);
  stop();
  c.burstFor(0);
  clock.advance(40);
  assertEquals(order, ["shrink", "gc", "gc"]);
});

Deno.test("idle gc: reads without a backlog put the collection off until they stop", () => {
  const clock = new ManualClock();
  let collected = 0;
  const c = new IdleCollector(() => collected++, 40, 0, clock);
  c.started();
  c.ended();
  // A flood read as fast as it comes: no backlog, but data all the time.
  for (let i = 0; i < 8; i++) {
    c.read();
    clock.advance(15);
  }
  assertEquals(collected, 0, "no collection while data keeps arriving");
  clock.advance(24);
  assertEquals(collected, 0, "not before the quiet time after the last read");
  clock.advance(1);
  assertEquals(collected, 1, "collected once the reads stopped");
});

Deno.test("idle gc: the process's own clock still collects", async () => {
  let done!: () => void;
  const collected = new Promise<void>((r) => done = r);
  const c = new IdleCollector(done, 1, 0);
  // The collector's timers are unreferenced: this one keeps the test's event loop alive.
  const keep = setTimeout(() => {}, 10_000);
  c.burstFor(0);
  await collected; // resolves only if the real timers fire the collection
  clearTimeout(keep);
});

Deno.test("idle gc: keepalives of thousands of connections call for no collection, a burst's megabytes do", () => {
  const clock = new ManualClock();
  let collected = 0;
  const c = new IdleCollector(() => collected++, 20, 0, clock, 1000, 5000);
  // The daemon's start collects after it whatever was read.
  c.burstFor(50);
  clock.advance(100);
  assertEquals(collected, 1);
  // Each a line read and handled: a "burst" of its own, but together a few bytes.
  for (let i = 0; i < 50; i++) {
    c.started();
    c.read(10);
    c.ended();
    clock.advance(30);
  }
  assertEquals(collected, 1, "500 bytes of keepalives: no collection");
  c.started();
  c.read(600);
  c.ended();
  clock.advance(30);
  assertEquals(collected, 2, "past the bytes: collected once quiet");
  c.started();
  c.read(10);
  c.ended();
  clock.advance(30);
  assertEquals(collected, 2, "the count starts again after a collection");
  // Small bursts are collected too, once the last collection is old enough.
  clock.advance(5000);
  c.started();
  c.ended();
  clock.advance(30);
  assertEquals(collected, 3, "after the gap, a small burst's end collects");
});
