/** The `parley` command line through the real entry point (`deno run -A main.ts ...`). */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { freePort } from "../support/ports.ts";
import { startServer } from "../support/server.ts";
import { parley } from "../support/cli.ts";

Deno.test("cli: help, version and usage of every command", async (t) => {
  await t.step("--help, -h and help list the commands", async () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const r = await parley(args);
      assertEquals(r.code, 0, r.stderr);
      for (const word of ["daemon", "user", "backup", "restore", "import thelounge|convos"]) {
        assertStringIncludes(r.stdout, word);
      }
    }
  });
  await t.step("--version prints the version alone", async () => {
    const r = await parley(["--version"]);
    assertEquals(r.code, 0);
    assert(/^\d+\.\d+\.\d+\n$/.test(r.stdout), r.stdout);
  });
  await t.step("each command has usage text", async () => {
    const expected: Record<string, string> = {
      daemon: "--listen",
      user: "set-role EMAIL",
      backup: "search.db",
      restore: "empty",
      import: "--domain",
    };
    for (const [command, text] of Object.entries(expected)) {
      for (
        const flag of command === "daemon" || command === "user" ? ["--help", "-h"] : ["--help"]
      ) {
        const r = await parley([command, flag]);
        assertEquals(r.code, 0, `${command} ${flag}: ${r.stderr}`);
        assertStringIncludes(r.stdout, text, `${command} ${flag}`);
      }
    }
  });
  await t.step("the help steers secrets to files and the environment", async () => {
    for (const args of [["--help"], ["daemon", "--help"]]) {
      const r = await parley(args);
      assertEquals(r.code, 0, r.stderr);
      for (const word of ["--secret-file", "PARLEY_SECRET_FILE", "--database-url-file"]) {
        assertStringIncludes(r.stdout, word, args.join(" "));
      }
      assertStringIncludes(r.stdout, "process list");
      // Every option of the table, with its default.
      assertStringIncludes(
        r.stdout,
        "PARLEY_MAX_UPLOAD_SIZE: upload limit in bytes (default 40000000)",
      );
    }
    const store = await parley(["store", "--help"]);
    assertStringIncludes(store.stdout, "--to-file FILE");
    assertStringIncludes(store.stdout, "PARLEY_STORE_COPY_TO");
  });
  await t.step("an unknown command or flag is exit 2 with the usage", async () => {
    const r = await parley(["frobnicate"]);
    assertEquals(r.code, 2);
    assertStringIncludes(r.stderr, 'unknown command "frobnicate"');
    const f = await parley(["user", "list", "--frob", "1"]);
    assertEquals(f.code, 2);
    assertStringIncludes(f.stderr, "unknown flag --frob");
  });
});

Deno.test("cli: user commands", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "parley-cli-" });
  const env = { PARLEY_HOME: home };
  try {
    await t.step("a data folder that does not exist is refused, not created", async () => {
      const missing = `${home}/nope`;
      const r = await parley(["user", "list"], { env: { PARLEY_HOME: missing } });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "does not exist");
      assertEquals(await Deno.stat(missing).then(() => true, () => false), false);
    });
    await t.step("user add reads the password from stdin", async () => {
      const r = await parley(["user", "add", "ann@example.org", "admin"], {
        env,
        stdin: "a long enough password\n",
      });
      assertEquals(r.code, 0, r.stderr);
      const again = await parley(["user", "add", "ann@example.org"], { env, stdin: "x\n" });
      assertEquals(again.code, 2);
      assertStringIncludes(again.stderr, "already exists");
      const short = await parley(["user", "add", "ben@example.org"], { env, stdin: "short\n" });
      assertEquals(short.code, 2);
      assertStringIncludes(short.stderr, "at least 10 characters");
    });
    await t.step(
      "--secret-file gives the secret from a file, kept off the command line",
      async () => {
        const file = `${home}/../${home.split("/").pop()}-secret`;
        try {
          await Deno.writeTextFile(file, "too short\n");
          const short = await parley(["user", "list", "--secret-file", file], { env });
          assertEquals(short.code, 2, short.stderr);
          assertStringIncludes(short.stderr, "PARLEY_SECRET must be at least 16 characters");
          await Deno.writeTextFile(file, "a secret long enough to be used\n");
          const ok = await parley(["user", "list", "--secret-file", file], { env });
          assertEquals(ok.code, 0, ok.stderr);
          const both = await parley(["user", "list", `--secret-file=${file}`], {
            env: { ...env, PARLEY_SECRET: "another secret of enough length" },
          });
          assertEquals(both.code, 2);
          assertStringIncludes(both.stderr, "PARLEY_SECRET and PARLEY_SECRET_FILE are both set");
        } finally {
          await Deno.remove(file).catch(() => {});
        }
      },
    );
    await t.step("user list prints only the list on stdout; logs go to stderr", async () => {
      // Whatever the command logs (nothing at info since the search indexer starts only once
      // something is stored) goes to stderr: even at debug, stdout is only the list.
      const r = await parley(["user", "list"], { env: { ...env, PARLEY_LOG_LEVEL: "debug" } });
      assertEquals(r.code, 0, r.stderr);
      assertEquals(r.stdout, "ann@example.org\tadmin\n");
    });
    await t.step("set-role refuses unknown roles and changes nothing", async () => {
      const r = await parley(["user", "set-role", "ann@example.org", "superuser"], { env });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "unknown role superuser");
      assertEquals((await parley(["user", "list"], { env })).stdout, "ann@example.org\tadmin\n");
      const ok = await parley(["user", "set-role", "ann@example.org", "admin", "bot"], { env });
      assertEquals(ok.code, 0, ok.stderr);
      assertEquals(
        (await parley(["user", "list"], { env })).stdout,
        "ann@example.org\tadmin,bot\n",
      );
    });
    await t.step("the added user logs in; invite prints a link; delete removes them", async () => {
      const server = await startServer({ home });
      try {
        await new ApiClient(server.url).login("ann@example.org", "a long enough password");
        const running = await parley(["user", "delete", "ann@example.org"], { env });
        assertEquals(running.code, 2, "delete waits for the daemon to stop");
        assertStringIncludes(running.stderr, "another Parley is running");
      } finally {
        await server.stop();
      }
      const invite = await parley(["user", "invite", "ann@example.org"], { env });
      assertEquals(invite.code, 0, invite.stderr);
      assert(
        /^http:\/\/\S+\/register\?email=ann%40example\.org&exp=\d+&token=\S+\n$/.test(
          invite.stdout,
        ),
      );
      // The link starts with the listen URL: the note says so and how to give the real one.
      assertStringIncludes(invite.stderr, "PARLEY_BASE_URL is not set");
      assertStringIncludes(invite.stderr, "--base-url");
      const based = await parley(["user", "invite", "ann@example.org"], {
        env: { ...env, PARLEY_BASE_URL: "https://chat.example.org/parley" },
      });
      assertEquals(based.code, 0, based.stderr);
      assert(based.stdout.startsWith("https://chat.example.org/parley/register?"), based.stdout);
      assertEquals(based.stderr, "");
      // Another admin first: the last admin, and the only user, are not deleted.
      const ben = await parley(["user", "add", "ben@example.org", "admin"], {
        env,
        stdin: "a long enough password\n",
      });
      assertEquals(ben.code, 0, ben.stderr);
      const del = await parley(["user", "delete", "ann@example.org"], { env });
      assertEquals(del.code, 0, del.stderr);
      assertEquals((await parley(["user", "list"], { env })).stdout, "ben@example.org\tadmin\n");
      const gone = await parley(["user", "delete", "ann@example.org"], { env });
      assertEquals(gone.code, 2);
      assertStringIncludes(gone.stderr, "no such user");
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("cli: the daemon's start-up, its lock and a busy port", async (t) => {
  const server = await startServer();
  try {
    await t.step("the start-up log gives the URL and says the first account becomes admin", () => {
      assertStringIncludes(server.output(), `open Parley url=${server.url}/`);
      assertStringIncludes(server.output(), `the first account registered becomes the admin`);
      assertStringIncludes(server.output(), `url=${server.url}/register`);
    });
    await t.step("a second daemon on the same data folder refuses to start", async () => {
      const r = await parley(["daemon"], {
        env: { PARLEY_HOME: server.home, PARLEY_LISTEN: `http://127.0.0.1:${freePort()}` },
      });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "another Parley is running");
      // The first one still serves.
      const res = await fetch(`${server.url}/api`);
      await res.body?.cancel();
      assertEquals(res.status, 200);
    });
    await t.step("a port in use is one line and exit 2", async () => {
      const home = await Deno.makeTempDir({ prefix: "parley-port-" });
      try {
        const r = await parley(["daemon"], {
          env: { PARLEY_HOME: home, PARLEY_LISTEN: server.url },
        });
        assertEquals(r.code, 2);
        assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
        assertStringIncludes(r.stderr, "is already in use");
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    });
    await t.step(
      "after a registration, a restart no longer announces a fresh install",
      async () => {
        await new ApiClient(server.url).register("first@example.org");
        await server.restart();
        assert(!server.output().split("stopped").at(-1)!.includes("first account registered"));
      },
    );
  } finally {
    await server.close();
  }
});
