/**
 * The route and compatibility tests run once per backend of the registry (scripts/test.ts): each
 * pass really stores on the backend it names, in the app in process and in the daemon alike.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { ApiClient } from "../support/api.ts";
import { databaseFor, startServer } from "../support/server.ts";
import { TEST_BACKEND } from "../support/test_backend.ts";
import { BACKENDS } from "../../store/backends.ts";
import { openStore } from "../../store/mod.ts";

/** The backend the runner named for this pass (none: the registry's default). */
const named = Deno.env.get("PARLEY_TEST_BACKEND") || BACKENDS[0].name;

Deno.test("the app in process stores on the pass's backend", async () => {
  assertEquals(TEST_BACKEND, named);
  const a = await startApp();
  try {
    assertEquals(a.deps.store.backend.name, named);
  } finally {
    await a.close();
  }
});

Deno.test("the daemon stores on the pass's backend", async () => {
  const server = await startServer();
  try {
    await new ApiClient(server.url).register("pass@example.com");
    // The same database the daemon was given, read from here: the user is there, on this backend.
    const store = await openStore(server.home, await databaseFor(server.home));
    try {
      assertEquals(store.backend.name, named);
      assert(await store.users.byEmail("pass@example.com"), "the daemon's user is not stored here");
    } finally {
      await store.close();
    }
  } finally {
    await server.close();
  }
});
