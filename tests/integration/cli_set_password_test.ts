/**
 * `parley user set-password` on SQLite while the daemon runs: nothing would reach the daemon, so
 * the IRC clients that logged in with the old password would stay attached. It waits for the
 * daemon to stop, as `user delete` does, and names the way that works while it runs.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { parley } from "../support/cli.ts";
import { startServer } from "../support/server.ts";

Deno.test("parley user set-password waits for the daemon on SQLite", async () => {
  const server = await startServer();
  const env = { PARLEY_HOME: server.home };
  const stdin = "another long password\n";
  try {
    await new ApiClient(server.url).register("ann@example.org");
    const running = await parley(["user", "set-password", "ann@example.org"], { env, stdin });
    assertEquals(running.code, 2, running.stderr);
    assertStringIncludes(running.stderr, "another Parley is running");
    assertStringIncludes(running.stderr, "parley user invite ann@example.org");
    // Nothing was set.
    await new ApiClient(server.url).login("ann@example.org");
    await server.stop();
    const stopped = await parley(["user", "set-password", "ann@example.org"], { env, stdin });
    assertEquals(stopped.code, 0, stopped.stderr);
  } finally {
    await server.close();
  }
});
