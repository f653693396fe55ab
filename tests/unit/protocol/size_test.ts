import { assertEquals } from "../../support/assert.ts";
import { formatSize } from "../../../protocol/size.ts";

Deno.test("sizes read as people write them, in the units the limits are set in", () => {
  assertEquals(formatSize(512), "512 B");
  assertEquals(formatSize(1536), "1.5 kB");
  assertEquals(formatSize(3482), "3.5 kB");
  assertEquals(formatSize(40_000_000), "40 MB", "the upload limit as the server says it");
  assertEquals(formatSize(1e9), "1 GB");
  assertEquals(formatSize(999_700), "1 MB", "not 1000 kB");
  assertEquals(formatSize(12_345_678), "12 MB");
});
