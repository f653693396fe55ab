/** store/full_disk.ts: how long a call the disk refused waits, and when it is refused at once. */
import { assert, assertEquals } from "../../support/assert.ts";
import { fullDiskWaits } from "../../../store/full_disk.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("refused calls wait together, each retry apart, until the spell is long", async () => {
  const waits = fullDiskWaits({ retryMs: 20, waitMs: 150 });
  const first = waits.retry();
  const second = waits.retry();
  assert(first && first === second, "one wait for the calls refused meanwhile");
  assertEquals(await first, true);
  // Refused again and again: waited for until the spell is 150 ms long, then refused at once.
  let tries = 1;
  for (;;) {
    const wait = waits.retry();
    if (!wait) break;
    assertEquals(await wait, true);
    tries++;
  }
  assert(tries >= 5 && tries <= 8, `${tries} waits of 20 ms in a 150 ms spell`);
  assertEquals(waits.retry(), undefined, "still refused at once while refusals go on");
  waits.close();
});

Deno.test("a disk that took writes for a spell's length begins a new spell", async () => {
  const waits = fullDiskWaits({ retryMs: 10, waitMs: 60 });
  const started = performance.now();
  while (performance.now() - started < 70) await (waits.retry() ?? sleep(10));
  assertEquals(waits.retry(), undefined, "past the wait, refused at once");
  await sleep(70); // no refusal for longer than a spell's wait: the disk had room
  const again = waits.retry();
  assert(again, "a new spell waits again");
  assertEquals(await again, true);
  waits.close();
});

Deno.test("closing ends the waits with false, and nothing waits after", async () => {
  const waits = fullDiskWaits({ retryMs: 60_000, waitMs: 120_000 });
  const wait = waits.retry()!;
  waits.close();
  assertEquals(await wait, false);
  assertEquals(waits.retry(), undefined);
});
