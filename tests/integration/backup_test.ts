/** `parley backup` of a running daemon, `parley restore` into an empty folder, and the daemon serving it. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { parley } from "../support/cli.ts";

Deno.test("backup of a running daemon, restored, serves the same data", async (t) => {
  const server = await startServer();
  const work = await Deno.makeTempDir({ prefix: "parley-backup-" });
  const restored = `${work}/restored`;
  const file = `${work}/nightly.tar.gz`;
  let uploaded!: { uid: string; id: string };
  try {
    const api = new ApiClient(server.url);
    await api.register("keeper@example.org");
    const form = new FormData();
    form.set("file", new File(["kept across the restore"], "note.txt", { type: "text/plain" }));
    const up = await api.post("/api/files", form);
    assertEquals(up.status, 200, JSON.stringify(up.body));
    uploaded = up.body.files[0];

    await t.step("backup runs beside the daemon and leaves search.db out", async () => {
      const r = await parley(["backup", file], { env: { PARLEY_HOME: server.home } });
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(r.stdout, "backup written");
      const list = await new Deno.Command("tar", { args: ["tzf", file], stdout: "piped" }).output();
      const names = new TextDecoder().decode(list.stdout).trim().split("\n");
      assert(names.includes("parley.db"), names.join(" "));
      assert(names.includes("secret"));
      // Every push subscription is tied to the VAPID keys: without them a restore silences them.
      assert(names.includes("vapid.json"), names.join(" "));
      assert(names.includes(`files/${uploaded.uid}/${uploaded.id}`), names.join(" "));
      assert(!names.some((n) => n.startsWith("search.db") || n.endsWith("-wal")), names.join(" "));
    });
    await t.step("an archive that exists is kept, unless --force", async () => {
      const before = await Deno.readFile(file);
      const r = await parley(["backup", file], { env: { PARLEY_HOME: server.home } });
      assertEquals(r.code, 2, r.stdout);
      assertEquals(r.stderr, `parley: ${file} exists; give --force to replace it\n`);
      assertEquals(await Deno.readFile(file), before);
      // Nothing left beside it.
      const names = [];
      for await (const e of Deno.readDir(work)) names.push(e.name);
      assertEquals(names, ["nightly.tar.gz"]);
      const forced = await parley(["backup", file, "--force"], {
        env: { PARLEY_HOME: server.home },
      });
      assertEquals(forced.code, 0, forced.stderr);
      assertStringIncludes(forced.stdout, "backup written");
    });
    await server.stop();

    await t.step("restore refuses a folder that is not empty", async () => {
      const r = await parley(["restore", file], { env: { PARLEY_HOME: server.home } });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "is not empty");
      // It says what is in the way.
      assertStringIncludes(r.stderr, "parley.db");
    });
    await t.step(
      "restore ignores, and keeps, the dotfiles of a home folder's skeleton",
      async () => {
        const home = `${work}/skeleton`;
        await Deno.mkdir(home, { mode: 0o700 });
        await Deno.writeTextFile(`${home}/.bashrc`, "# skeleton\n");
        await Deno.writeTextFile(`${home}/.profile`, "# skeleton\n");
        const r = await parley(["restore", file], { env: { PARLEY_HOME: home } });
        assertEquals(r.code, 0, r.stderr);
        assertEquals(await Deno.readTextFile(`${home}/.bashrc`), "# skeleton\n");
        assert((await Deno.stat(`${home}/parley.db`)).isFile);
        const other = `${work}/other`;
        await Deno.mkdir(other, { mode: 0o700 });
        await Deno.writeTextFile(`${other}/.profile`, "# skeleton\n");
        await Deno.writeTextFile(`${other}/notes.txt`, "mine\n");
        const refused = await parley(["restore", file], { env: { PARLEY_HOME: other } });
        assertEquals(refused.code, 2);
        assertStringIncludes(refused.stderr, `${other} is not empty (notes.txt)`);
      },
    );
    await t.step("restore into a new folder, and the daemon serves the restored data", async () => {
      const r = await parley(["restore", file], { env: { PARLEY_HOME: restored } });
      assertEquals(r.code, 0, r.stderr);
      assertEquals(
        await Deno.readTextFile(`${restored}/vapid.json`),
        await Deno.readTextFile(`${server.home}/vapid.json`),
      );
      const again = await startServer({ home: restored });
      try {
        const client = new ApiClient(again.url);
        await client.login("keeper@example.org");
        const res = await fetch(`${again.url}/api/files/${uploaded.uid}/${uploaded.id}`);
        assertEquals(res.status, 200);
        assertStringIncludes(await res.text(), "kept across the restore");
      } finally {
        await again.stop();
      }
    });
    await t.step("a file that is not a backup is refused and leaves the folder empty", async () => {
      await Deno.writeTextFile(`${work}/junk.tar.gz`, "not gzip at all");
      const empty = `${work}/empty`;
      const r = await parley(["restore", `${work}/junk.tar.gz`], { env: { PARLEY_HOME: empty } });
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "is not a Parley backup");
      const left = [];
      for await (const e of Deno.readDir(empty)) if (e.name !== "parley.lock") left.push(e.name);
      assertEquals(left, []);
    });
  } finally {
    await server.close();
    await Deno.remove(work, { recursive: true });
  }
});
