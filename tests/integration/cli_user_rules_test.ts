/**
 * `parley user set-role`, `delete` and `suspend` keep the rules the API and BouncerServ keep: a
 * server always has an admin who can log in, and someone left (with nobody, the next visitor to
 * /register becomes the admin). Refused in the API's words, exit code 2, nothing changed.
 */
import { assertEquals } from "../support/assert.ts";
import { parley } from "../support/cli.ts";

const PASSWORD = "a long enough password\n";

Deno.test("parley user: the last admin and the only user stay", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "parley-cli-rules-" });
  const env = { PARLEY_HOME: home };
  const list = async () => (await parley(["user", "list"], { env })).stdout;
  const add = async (email: string, ...roles: string[]) => {
    const r = await parley(["user", "add", email, ...roles], { env, stdin: PASSWORD });
    assertEquals(r.code, 0, r.stderr);
  };
  /** Runs a command that must be refused with `words`, changing nothing. */
  const refused = async (args: string[], words: string) => {
    const before = await list();
    const r = await parley(["user", ...args], { env });
    assertEquals(r.code, 2, r.stdout);
    assertEquals(r.stderr, `parley: ${words}\n`);
    assertEquals(await list(), before);
  };
  try {
    await t.step("the only user left cannot be deleted, admin or not", async () => {
      await add("bob@example.com");
      await refused(["delete", "bob@example.com"], "You are the only user left.");
    });
    await t.step("the last admin keeps the role and is not deleted", async () => {
      await add("admin@example.com", "admin");
      await refused(
        ["set-role", "admin@example.com"],
        "The last admin cannot give up the admin role.",
      );
      await refused(
        ["set-role", "admin@example.com", "bot"],
        "The last admin cannot give up the admin role.",
      );
      await refused(["delete", "admin@example.com"], "The last admin cannot be deleted.");
      await refused(["suspend", "admin@example.com"], "The last admin cannot be suspended.");
      // Other roles beside admin are fine.
      const bot = await parley(["user", "set-role", "admin@example.com", "admin", "bot"], { env });
      assertEquals(bot.code, 0, bot.stderr);
    });
    await t.step("with a second admin, either may go", async () => {
      await add("carol@example.com", "admin");
      // Suspended, carol cannot log in to act as one: admin stays the last who can.
      const suspended = await parley(["user", "suspend", "carol@example.com"], { env });
      assertEquals([suspended.code, suspended.stdout], [0, "suspended carol@example.com\n"]);
      assertEquals(
        (await list()).split("\n").find((l) => l.startsWith("carol")),
        "carol@example.com\tadmin\tsuspended",
      );
      await refused(
        ["set-role", "admin@example.com"],
        "The last admin cannot give up the admin role.",
      );
      const resumed = await parley(["user", "resume", "carol@example.com"], { env });
      assertEquals(resumed.code, 0, resumed.stderr);
      assertEquals(
        (await list()).split("\n").find((l) => l.startsWith("carol")),
        "carol@example.com\tadmin",
      );
      const demoted = await parley(["user", "set-role", "admin@example.com"], { env });
      assertEquals(demoted.code, 0, demoted.stderr);
      await refused(["delete", "carol@example.com"], "The last admin cannot be deleted.");
      const deleted = await parley(["user", "delete", "admin@example.com"], { env });
      assertEquals(deleted.code, 0, deleted.stderr);
      const bob = await parley(["user", "delete", "bob@example.com"], { env });
      assertEquals(bob.code, 0, bob.stderr);
      assertEquals(await list(), "carol@example.com\tadmin\n");
      await refused(["delete", "carol@example.com"], "You are the only user left.");
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
