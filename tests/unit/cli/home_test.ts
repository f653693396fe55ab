/**
 * The data folder as the commands see it (cli/home.ts): one lock per folder, held until released,
 * a missing folder refused rather than taken for an empty installation, and the SQLite-only
 * commands refused on PostgreSQL.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { type Config, ConfigError, parseConfig } from "../../../config.ts";
import {
  baseUrlNote,
  commandConfig,
  isDir,
  LOCK_FILE,
  lockHome,
  refuseOnPostgres,
} from "../../../cli/home.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "parley-home-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function configError(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    assert(err instanceof ConfigError, `not a ConfigError: ${err}`);
    return err.message;
  }
  throw new Error("it did not fail");
}

Deno.test("lockHome: one holder per data folder, until it lets go", async () => {
  await withDir(async (home) => {
    const first = await lockHome(home, "importing");
    assertEquals(((await Deno.stat(join(home, LOCK_FILE))).mode ?? 0) & 0o777, 0o600);
    first.close();
    // What a process that is gone left, with a longer pid than this one's.
    await Deno.writeTextFile(join(home, LOCK_FILE), "123456789012\n");
    const lock = await lockHome(home, "importing");
    try {
      assertEquals(await Deno.readTextFile(join(home, LOCK_FILE)), `${Deno.pid}\n`);
      assertEquals(
        await configError(() => lockHome(home, "restoring")),
        `another Parley is running on ${home} (${join(home, LOCK_FILE)} is locked); ` +
          "stop it before restoring",
      );
    } finally {
      lock.close();
    }
    const again = await lockHome(home, "importing");
    again.close();
  });
});

Deno.test("commandConfig: a data folder that does not exist is an error, not a new one", async () => {
  await withDir(async (dir) => {
    const missing = join(dir, "typo");
    assertEquals(
      await configError(() => commandConfig({ PARLEY_HOME: missing })),
      `the data folder ${missing} does not exist (set PARLEY_HOME or pass --home)`,
    );
    assertEquals(await isDir(missing), false);
    await Deno.writeTextFile(missing, "a file");
    assertEquals(await isDir(missing), false, "a file is no folder");
    assertEquals(await isDir(dir), true);
    const config = await commandConfig({ PARLEY_HOME: dir, PARLEY_SECRET: "s".repeat(40) });
    assertEquals(config.home, dir);
  });
});

Deno.test("refuseOnPostgres and the base URL note", async () => {
  const sqlite = { ...parseConfig({ PARLEY_HOME: "/x" }), secret: "s" } as Config;
  refuseOnPostgres(sqlite, "use pg_dump");
  const pg = { ...sqlite, databaseUrl: "postgres://h/db" } as Config;
  assertEquals(
    await configError(() => refuseOnPostgres(pg, "use pg_dump")),
    "PARLEY_DATABASE_URL is set: the store is PostgreSQL; use pg_dump",
  );
  if (Deno.env.get("PARLEY_BASE_URL")) return; // the note depends on it: nothing to check here
  assertStringIncludes(baseUrlNote(sqlite, {}) ?? "", `links start with ${sqlite.baseUrl.href}`);
  assertEquals(baseUrlNote(sqlite, { PARLEY_BASE_URL: "https://chat.example" }), undefined);
});
