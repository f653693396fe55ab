/** lib/lazy.ts: a module loaded on first use, once. */
import { assertEquals, assertRejects } from "../../support/assert.ts";
import { lazy } from "../../../lib/lazy.ts";

Deno.test("lazy loads once and shares the result", async () => {
  let loads = 0;
  const get = lazy(() => Promise.resolve(++loads));
  assertEquals(await Promise.all([get(), get()]), [1, 1]);
  assertEquals(await get(), 1);
  assertEquals(loads, 1);
});

Deno.test("lazy tries again after a failed load", async () => {
  let loads = 0;
  const get = lazy(() =>
    ++loads === 1 ? Promise.reject(new Error("disk")) : Promise.resolve(loads)
  );
  const err = await assertRejects(() => get());
  assertEquals(err.message, "disk");
  assertEquals(await get(), 2);
});
