/** The update checker against a real local HTTP server. */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  isNewer,
  parseAnswer,
  UPDATE_CACHE_MS,
  UpdateChecker,
  versionNumber,
} from "../../../updates/check.ts";

Deno.test("updates: versions as numbers keep their order", () => {
  assertEquals(versionNumber("0.1.0"), 0.01);
  assertEquals(versionNumber("1.2.3"), 1.0203);
  assertEquals(versionNumber("v8.07"), 8.07);
  assert(versionNumber("1.10.0") > versionNumber("1.9.99"));
  assert(Number.isNaN(versionNumber("latest")));
  assertEquals(parseAnswer('{"version":"0.2.0"}'), "0.2.0");
  assertEquals(parseAnswer('{"available":8.07}'), "8.7.0");
  assertEquals(parseAnswer('{"available":1.0203}'), "1.2.3");
  assertEquals(parseAnswer("1.0.0\n"), "1.0.0");
  assertEquals(parseAnswer("<html>"), null);
});

Deno.test("updates: newer is semver order, where the API's numbers would collide", () => {
  assert(isNewer("1.10.0", "1.9.99"));
  // As numbers both are 2.0: only semver sees 2.0.0 is newer.
  assert(isNewer("2.0.0", "1.100.0"));
  assert(!isNewer("1.100.0", "2.0.0"));
  assert(!isNewer("1.0.0-rc.1", "1.0.0"));
  assert(isNewer("1.0.0", "1.0.0-rc.1"));
});

Deno.test("updates: off, offline, and a newer version cached for an hour", async () => {
  const off = new UpdateChecker("", "0.1.0");
  assertEquals(await off.check(), { available: 0.01, running: 0.01 });

  // A port nobody listens on: offline.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const offline = new UpdateChecker(`http://127.0.0.1:${deadPort}/`, "0.1.0");
  assertEquals(await offline.check(), { available: 0.01, running: 0.01 });

  let asked = 0;
  let answer = '{"version":"0.3.1"}';
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asked++;
    return new Response(answer, { headers: { "content-type": "application/json" } });
  });
  try {
    let now = 1_000_000;
    const checker = new UpdateChecker(
      `http://127.0.0.1:${server.addr.port}/version`,
      "0.1.0",
      () => now,
    );
    assertEquals(await checker.check(), { available: 0.0301, running: 0.01 });
    answer = "0.4.0";
    assertEquals((await checker.check()).available, 0.0301);
    assertEquals(asked, 1);
    now += UPDATE_CACHE_MS + 1;
    assertEquals((await checker.check()).available, 0.04);
    assertEquals(asked, 2);
    // Garbage counts as "nothing newer".
    answer = "<html>";
    now += UPDATE_CACHE_MS + 1;
    assertEquals((await checker.check()).available, 0.01);
  } finally {
    await server.shutdown();
  }
});
