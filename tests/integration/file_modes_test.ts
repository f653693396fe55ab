/**
 * Databases and uploads are private to Parley's user (0600), an open data folder is reported,
 * and old database files are narrowed.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { captureErrors, startApp } from "../support/app.ts";
import { openStore } from "../../store/mod.ts";

/** The permission bits of a file. */
const modeOf = (path: string) => ((Deno.statSync(path).mode ?? 0) & 0o777).toString(8);

Deno.test("file modes: databases and uploads are private to Parley's user", async (t) => {
  const a = await startApp();
  try {
    const cookie = await a.register("admin@example.com");
    await t.step("parley.db, search.db and their -wal and -shm are 0600", () => {
      for (const name of ["parley.db", "search.db"]) {
        for (const suffix of ["", "-wal", "-shm"]) {
          assertEquals(modeOf(`${a.home}/${name}${suffix}`), "600", name + suffix);
        }
      }
    });
    await t.step("an uploaded file is 0600", async () => {
      const form = new FormData();
      form.set("file", new File(["secret"], "s.txt", { type: "text/plain" }));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 200);
      const file = res.body.files[0];
      assertEquals(modeOf(`${a.home}/files/${file.uid}/${file.id}`), "600");
    });
  } finally {
    await a.close();
  }
});

Deno.test("file modes: an open data folder is reported and old database files are narrowed", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-mode-" });
  try {
    await Deno.chmod(home, 0o755);
    // A database left by an older Parley, created with the umask's mode.
    await Deno.writeFile(`${home}/parley.db`, new Uint8Array(0), { mode: 0o644 });
    await Deno.chmod(`${home}/parley.db`, 0o644);
    const { value: store, lines } = await captureErrors(() => openStore(home));
    await store.close();
    assert(
      lines.some((l) => l.includes("WARN") && l.includes("data folder") && l.includes(home)),
      lines.join("\n"),
    );
    assertEquals(modeOf(`${home}/parley.db`), "600");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
