/**
 * On PostgreSQL, `parley user` signs with the nodes' secret or not at all: an invite link signed
 * with another would be refused by every node (401), and a message to the nodes read by none. A
 * command run from a data folder without the nodes' secret refuses in one line naming what to
 * copy where, exit 2, and writes no new secret there.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { parley } from "../support/cli.ts";
import { startPostgres } from "../support/postgres.ts";
import { startServer } from "../support/server.ts";

const SECRET = "the secret every node of this installation has";

/** The one line a refused command wrote on stderr. */
function refusal(r: { code: number; stdout: string; stderr: string }): string {
  assertEquals(r.code, 2, r.stderr);
  assertEquals(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  assertEquals(lines.length, 1, r.stderr);
  return lines[0];
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("parley user on PostgreSQL signs with the nodes' secret or refuses", async (t) => {
  const pg = await startPostgres();
  const url = await pg.database();
  // The node keeps its secret in its data folder's file, as one started without PARLEY_SECRET.
  const nodeHome = await Deno.makeTempDir({ prefix: "parley-node-" });
  await Deno.writeTextFile(`${nodeHome}/secret`, `${SECRET}\n`, { mode: 0o600 });
  const node = await startServer({ home: nodeHome, env: { PARLEY_DATABASE_URL: url } });
  const cliHome = await Deno.makeTempDir({ prefix: "parley-cli-secret-" });
  const env = { PARLEY_HOME: cliHome, PARLEY_DATABASE_URL: url };
  const secretFile = `${cliHome}/secret`;
  try {
    await new ApiClient(node.url).register("admin@example.org");
    await t.step("a folder without a secret: refused, and none is written", async () => {
      // Commands that sign nothing need no secret.
      const added = await parley(["user", "add", "ann@example.org"], {
        env,
        stdin: "correct horse battery\n",
      });
      assertEquals(added.code, 0, added.stderr);
      const listed = await parley(["user", "list"], { env });
      assertEquals(listed.code, 0, listed.stderr);
      assertEquals(await exists(secretFile), false, "user list wrote no secret");
      const line = refusal(await parley(["user", "invite", "new@example.org"], { env }));
      assertStringIncludes(line, "no secret to sign with");
      assertStringIncludes(line, `copy the secret file of a node's data folder to ${secretFile}`);
      assertStringIncludes(line, "PARLEY_SECRET");
      assertEquals(await exists(secretFile), false, "user invite wrote no secret");
    });
    await t.step("another secret: refused, naming it; nothing is changed", async () => {
      await Deno.writeTextFile(secretFile, "a secret of another installation\n");
      const line = refusal(await parley(["user", "invite", "new@example.org"], { env }));
      assertStringIncludes(
        line,
        `${secretFile} is not the secret of this database's nodes (the database keeps a ` +
          "fingerprint of it)",
      );
      assertStringIncludes(line, `copy the secret file of a node's data folder to ${secretFile}`);
      assertEquals(await Deno.readTextFile(secretFile), "a secret of another installation\n");
      const wrongEnv = { ...env, PARLEY_SECRET: "a secret of another installation" };
      assertStringIncludes(
        refusal(await parley(["user", "delete", "ann@example.org"], { env: wrongEnv })),
        "PARLEY_SECRET is not the secret of this database's nodes",
      );
      assertStringIncludes(
        refusal(
          await parley(["user", "set-password", "ann@example.org"], {
            env: wrongEnv,
            stdin: "another long password\n",
          }),
        ),
        "PARLEY_SECRET is not the secret of this database's nodes",
      );
      // Ann is there, with her password.
      await new ApiClient(node.url).login("ann@example.org");
    });
    await t.step("the nodes' secret, copied: the link works on the node", async () => {
      await Deno.copyFile(`${nodeHome}/secret`, secretFile);
      const r = await parley(["user", "invite", "new@example.org"], { env });
      assertEquals(r.code, 0, r.stderr);
      const link = new URL(r.stdout.trim());
      const registered = await new ApiClient(node.url).post("/api/user/register", {
        email: "new@example.org",
        password: "correct horse battery",
        exp: link.searchParams.get("exp"),
        token: link.searchParams.get("token"),
      });
      assertEquals(registered.status, 200, JSON.stringify(registered.body));
      // And given as PARLEY_SECRET, in a folder without the file.
      await Deno.remove(secretFile);
      const given = await parley(["user", "invite", "new2@example.org"], {
        env: { ...env, PARLEY_SECRET: SECRET },
      });
      assertEquals(given.code, 0, given.stderr);
      assert(given.stdout.includes("/register?email=new2%40example.org"), given.stdout);
    });
  } finally {
    await node.close();
    await Deno.remove(cliHome, { recursive: true });
    await pg.close();
  }
});
