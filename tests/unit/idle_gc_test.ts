import { assertEquals } from "../support/assert.ts";
import { IdleCollector } from "../../lib/idle_gc.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("idle gc: collects once every burst has been quiet, never during one", async () => {
  let collected = 0;
  const c = new IdleCollector(() => collected++, 20, 0);
  c.started();
  c.started(); // a second connection's burst
  c.ended();
  await sleep(60);
  assertEquals(collected, 0, "one burst is still under way");
  c.ended();
  await sleep(60);
  assertEquals(collected, 1, "collected once after the last burst ended");
  await sleep(60);
  assertEquals(collected, 1, "and only once");
});

Deno.test("idle gc: a burst that starts in the quiet time puts the collection off", async () => {
  let collected = 0;
  const c = new IdleCollector(() => collected++, 40, 0);
  c.started();
  c.ended();
  await sleep(10);
  c.started();
  await sleep(80);
  assertEquals(collected, 0);
  c.ended();
  await sleep(80);
  assertEquals(collected, 1);
});

Deno.test("idle gc: collections are kept apart", async () => {
  let collected = 0;
  const c = new IdleCollector(() => collected++, 5, 150);
  c.started();
  c.ended();
  await sleep(40);
  assertEquals(collected, 1);
  c.started();
  c.ended();
  await sleep(40);
  assertEquals(collected, 1, "too soon after the last one");
  await sleep(200);
  assertEquals(collected, 2, "done once the gap has passed");
});

Deno.test("idle gc: a burst for a given time collects after it and the quiet time", async () => {
  let collected = 0;
  const c = new IdleCollector(() => collected++, 10, 0);
  c.burstFor(40);
  await sleep(20);
  assertEquals(collected, 0);
  await sleep(100);
  assertEquals(collected, 1);
});

Deno.test("idle gc: hooks run before each collection until removed", async () => {
  const order: string[] = [];
  const c = new IdleCollector(() => order.push("gc"), 5, 0);
  const stop = c.beforeCollect(() => order.push("shrink"));
  c.burstFor(0);
  await sleep(40);
  stop();
  c.burstFor(0);
  await sleep(40);
  assertEquals(order, ["shrink", "gc", "gc"]);
});

Deno.test("idle gc: reads without a backlog put the collection off until they stop", async () => {
  let collected = 0;
  const c = new IdleCollector(() => collected++, 40, 0);
  c.started();
  c.ended();
  // A flood read as fast as it comes: no backlog, but data all the time.
  for (let i = 0; i < 8; i++) {
    c.read();
    await sleep(15);
  }
  assertEquals(collected, 0, "no collection while data keeps arriving");
  await sleep(100);
  assertEquals(collected, 1, "collected once the reads stopped");
});
