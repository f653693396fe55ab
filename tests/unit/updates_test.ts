import { assertEquals } from "../support/assert.ts";
import { parseAnswer, versionNumber } from "../../updates/check.ts";

Deno.test("updates: versions become comparable numbers", () => {
  assertEquals(versionNumber("0.1.0"), 0.01);
  assertEquals(versionNumber("1.2.3"), 1.0203);
  assertEquals(versionNumber("v10.20.30"), 10.203);
  assertEquals(versionNumber("2"), 2);
  assertEquals(versionNumber("1.2.3-beta"), 1.0203);
  assertEquals(versionNumber("nope"), null);
  assertEquals(versionNumber("1.200.0"), null);
  // Numeric order is version order.
  const sorted = ["1.10.0", "1.9.99", "0.99.99", "1.10.1"].map((v) => versionNumber(v)!);
  assertEquals([...sorted].sort((a, b) => a - b), [0.9999, 1.0999, 1.1, 1.1001]);
});

Deno.test("updates: answers as JSON or bare text", () => {
  assertEquals(parseAnswer('{"version":"9.8.7"}'), 9.0807);
  assertEquals(parseAnswer('"1.2.3"'), 1.0203);
  assertEquals(parseAnswer("1.2.3\n"), 1.0203);
  assertEquals(parseAnswer('{"available":3.5}'), 3.5);
  assertEquals(parseAnswer("<html>"), null);
  assertEquals(parseAnswer('{"version":5}'), null);
});
