/**
 * Files in process (tests/support/app.ts): upload, paging, download, write_only, delete and the
 * size limits, each answer also checked against the API document.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startApp, type TestApp } from "../support/app.ts";
import type { PgStore } from "../../store/pg/mod.ts";

const MAX = 5000;

function form(content: string | Uint8Array, name: string, type: string, extra = {}): FormData {
  const f = new FormData();
  f.set("file", new File([content as BlobPart], name, { type }));
  for (const [k, v] of Object.entries(extra)) f.set(k, String(v));
  return f;
}

/**
 * The files whose contents are kept for user `uid`: on SQLite the entries of its folder; on
 * PostgreSQL the ids of files with contents, plus any blob no file refers to (left behind).
 */
async function storedFiles(a: TestApp, uid: string): Promise<string[]> {
  const store = a.deps.store as Partial<PgStore>;
  if (store.sql) {
    const kept = await store.sql`SELECT file_id FROM files
      WHERE user_id = ${Number(uid)} AND blob IS NOT NULL`;
    const orphans = await store.sql`SELECT DISTINCT blob FROM file_blobs
      WHERE blob NOT IN (SELECT blob FROM files WHERE blob IS NOT NULL)`;
    return [
      ...kept.map((r) => r.file_id as string),
      ...orphans.map((r) => `orphan blob ${r.blob}`),
      // Uploads pass through a temporary file in the data folder: none may stay.
      ...(await diskEntries(a.home, uid)).map((name) => `on disk ${name}`),
    ].sort();
  }
  return await diskEntries(a.home, uid);
}

async function diskEntries(home: string, uid: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(`${home}/files/${uid}`)) out.push(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out.sort();
}

Deno.test("files: upload, paging, anonymous download, write_only, delete, limits", async (t) => {
  const a = await startApp({ PARLEY_MAX_UPLOAD_SIZE: String(MAX) });
  try {
    const { admin, user } = await adminAndUser(a);
    const anon = a.client();
    const base = a.deps.config.baseUrl.origin;
    // A request as a browser sends it, without the client's JSON handling.
    // A file's public URL is Convos's /file/<uid>/<id>, which redirects to the API's; followed
    // here as a browser follows it.
    const raw = async (url: string, init?: RequestInit) => {
      const res = await anon.fetcher(new Request(url, init));
      const to = res.status === 302 ? res.headers.get("location") : null;
      if (!to) return res;
      await res.body?.cancel();
      return anon.fetcher(new Request(new URL(to, url), init));
    };
    let first!: { id: string; uid: string; url: string };

    await t.step("upload needs a session", async () => {
      const res = await anon.post("/api/files", form("x", "a.txt", "text/plain"));
      assertEquals(res.status, 401);
    });

    await t.step("multipart upload answers the uploaded file record", async () => {
      const res = await user.post("/api/files", form("hello world", "hello.txt", "text/plain"));
      assertEquals(res.status, 200);
      const [f] = res.body.files;
      assertEquals(f.ext, "txt");
      assertEquals(f.filename, "hello.txt");
      assert(/^[A-Za-z0-9_-]{22}$/.test(f.id), `128-bit url-safe id: ${f.id}`);
      assert(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(f.saved), f.saved);
      assertEquals(f.url, `${base}/file/${f.uid}/${f.id}`);
      first = f;
    });

    await t.step("anyone with the URL downloads it, with its type and nosniff", async () => {
      const res = await raw(first.url);
      assertEquals(res.status, 200);
      assertEquals(await res.text(), "hello world");
      // Convos's spelling and its inline files without a disposition (web-files.t:42, 88).
      assertEquals(res.headers.get("content-type"), "text/plain;charset=UTF-8");
      assertEquals(res.headers.get("x-content-type-options"), "nosniff");
      assertEquals(res.headers.get("content-disposition"), null);
      assertEquals(res.headers.get("cache-control"), "max-age=86400");
      assertEquals(res.headers.get("content-security-policy"), null);
    });

    await t.step("urlencoded upload stores the text", async () => {
      const res = await user.post("/api/files", new URLSearchParams({ file: "pasted text" }));
      assertEquals(res.status, 200);
      assertEquals(res.body.files[0].filename, "paste.txt");
      const got = await raw(res.body.files[0].url);
      assertEquals(await got.text(), "pasted text");
    });

    await t.step("a missing file field is a 400 at /body/file", async () => {
      const f = new FormData();
      f.set("id", "x");
      const res = await user.post("/api/files", f);
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/file");
    });

    await t.step("HTML and SVG go out as sandboxed attachments that cannot run", async () => {
      for (const [name, type] of [["x.html", "text/html"], ["x.svg", "image/svg+xml"]]) {
        const up = await user.post("/api/files", form("<script>alert(1)</script>", name, type));
        const res = await raw(up.body.files[0].url);
        await res.body?.cancel();
        assertEquals(res.status, 200);
        // Their own type, as Convos sends them (web-files.t:106, 129): as an attachment under
        // sandbox and nosniff they neither render in this origin nor run as a script.
        assertEquals(res.headers.get("content-type")!.split(";")[0], type);
        assertEquals(res.headers.get("content-security-policy"), "sandbox");
        assertEquals(res.headers.get("x-content-type-options"), "nosniff");
        assert(res.headers.get("content-disposition")!.startsWith("attachment;"), name);
      }
    });

    await t.step("the id field replaces an own file's contents, keeping its URL", async () => {
      const res = await user.post(
        "/api/files",
        form("hello again", "hello.txt", "text/plain", { id: first.id }),
      );
      assertEquals(res.status, 200);
      assertEquals(res.body.files[0].url, first.url);
      assertEquals(await (await raw(first.url)).text(), "hello again");
      // Ids are per user (Convos's chosen keys): another user's upload with this id makes that
      // user's own file and leaves this one alone.
      const foreign = await admin.post(
        "/api/files",
        form("mine now", "x.txt", "text/plain", { id: first.id }),
      );
      assertEquals(foreign.status, 200);
      assert(foreign.body.files[0].url !== first.url);
      assertEquals(await (await raw(first.url)).text(), "hello again");
      await admin.delete(`/api/files/${foreign.body.files[0].uid}/${first.id}`);
    });

    await t.step("write_only files are listed but never served", async () => {
      const up = await user.post(
        "/api/files",
        form("secret", "w.txt", "text/plain", { write_only: 1 }),
      );
      assertEquals(up.status, 200);
      const res = await raw(up.body.files[0].url);
      await res.body?.cancel();
      assertEquals(res.status, 404);
    });

    await t.step("unknown files are 404", async () => {
      const res = await anon.get(`/api/files/${first.uid}/AAAAAAAAAAAAAAAAAAAAAA`);
      assertEquals(res.status, 404);
      const wrongUid = await anon.get(`/api/files/999/${first.id}`);
      assertEquals(wrongUid.status, 404);
    });

    await t.step("listing pages newest first across several pages", async () => {
      for (let i = 0; i < 5; i++) {
        const res = await user.post("/api/files", form(`n${i}`, `n${i}.txt`, "text/plain"));
        assertEquals(res.status, 200);
      }
      // 10 files in all: hello, paste, x.html, x.svg, w.txt, n0..n4.
      const p1 = await user.get("/api/files?limit=4");
      assertEquals(p1.status, 200);
      assertEquals(p1.body.files.map((f: { name: string }) => f.name), [
        "n4.txt",
        "n3.txt",
        "n2.txt",
        "n1.txt",
      ]);
      // Convos's paging (web-files.t:161-190): no `after` on the first page; `next` is the first
      // file of the next page, and the next page's cursor is this page's last file.
      assertEquals(p1.body.after, undefined);
      assertEquals(p1.body.prev, undefined);
      const last1 = p1.body.files[3].id;
      assertEquals(typeof p1.body.files[0].size, "number");

      const p2 = await user.get(`/api/files?limit=4&after=${last1}`);
      assertEquals(p2.body.files.map((f: { name: string }) => f.name), [
        "n0.txt",
        "w.txt",
        "x.svg",
        "x.html",
      ]);
      assertEquals(p1.body.next, p2.body.files[0].id);
      assertEquals(p2.body.after, last1);
      assertEquals(p2.body.prev, "prev");

      const p3 = await user.get(`/api/files?limit=4&after=${p2.body.files[3].id}`);
      assertEquals(p3.body.files.map((f: { name: string }) => f.name), ["paste.txt", "hello.txt"]);
      assertEquals(p2.body.next, p3.body.files[0].id);
      assertEquals(p3.body.next, undefined);
      assertEquals(p3.body.prev, last1);

      const back = await user.get(`/api/files?limit=4&after=${p3.body.prev}`);
      assertEquals(back.body.files, p2.body.files);
      const again = await user.get(`/api/files?limit=4&after=${p2.body.prev}`);
      assertEquals(again.body.files, p1.body.files);

      const all = await user.get("/api/files?limit=500");
      assertEquals(all.body.files.length, 10);
      assertEquals((await admin.get("/api/files")).body.files, []);
    });

    await t.step(
      "an unknown cursor is an empty page; a bad limit a 400 with its path",
      async () => {
        // As Convos (web-files.t:168): no files, no cursors.
        // The usage stays: a page deleted under another tab's cursor keeps its meter.
        const res = await user.get("/api/files?after=nosuchfile");
        assertEquals(res.status, 200);
        assertEquals(Object.keys(res.body).sort(), ["files", "usage"]);
        assertEquals(res.body.files, []);
        assertEquals(res.body.usage, (await user.get("/api/files")).body.usage);
        const foreign = await admin.get(`/api/files?after=${first.id}`);
        assertEquals(foreign.body.files, []);
        const limit = await user.get("/api/files?limit=x");
        assertEquals(limit.body.errors[0].path, "/query/limit");
      },
    );

    await t.step("one byte over the limit is refused and leaves nothing on disk", async () => {
      const before = await storedFiles(a, first.uid);
      const res = await user.post("/api/files", form(new Uint8Array(MAX + 1), "big.bin", ""));
      // Convos's answer (web-files.t:145-146).
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0], { message: "Maximum message size exceeded", path: "/file" });
      const exact = await user.post("/api/files", form(new Uint8Array(MAX), "max.bin", ""));
      assertEquals(exact.status, 200);
      const huge = await user.post("/api/files", form(new Uint8Array(MAX + 200_000), "h.bin", ""));
      assertEquals(huge.status, 400);
      const after = await storedFiles(a, first.uid);
      assertEquals(after, [...before, exact.body.files[0].id].sort());
    });

    await t.step("a body without Content-Length is counted as it streams", async () => {
      const before = await storedFiles(a, first.uid);
      const enc = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(ctl) {
          ctl.enqueue(
            enc.encode(
              '--B\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n\r\n',
            ),
          );
          for (let sent = 0; sent <= MAX; sent += 500) ctl.enqueue(new Uint8Array(500));
          ctl.enqueue(enc.encode("\r\n--B--\r\n"));
          ctl.close();
        },
      });
      const streamed = await raw(`${base}/api/files`, {
        method: "POST",
        body,
        headers: { "content-type": "multipart/form-data; boundary=B", cookie: user.cookieHeader },
      });
      assertEquals(streamed.status, 400);
      assertEquals((await streamed.json()).errors[0].path, "/file");
      const text = await user.post(
        "/api/files",
        new URLSearchParams({ file: "z".repeat(MAX + 1) }),
      );
      assertEquals(text.status, 400);
      // Fields after the file are read too: write_only given last still hides the file.
      const late = new FormData();
      late.append("file", new File(["late"], "late.txt", { type: "text/plain" }));
      late.append("write_only", "true");
      const hidden = await user.post("/api/files", late);
      assertEquals(hidden.status, 200);
      const get = await raw(hidden.body.files[0].url);
      await get.body?.cancel();
      assertEquals(get.status, 404);
      await user.delete(`/api/files/${first.uid}/${hidden.body.files[0].id}`);
      assertEquals(await storedFiles(a, first.uid), before);
    });

    await t.step("the user's files are bounded in bytes by the server setting", async () => {
      const used = (await user.get("/api/files?limit=200")).body.files
        .reduce((n: number, f: { size: number }) => n + f.size, 0);
      const bound = used + 3000;
      assertEquals(
        (await admin.post("/api/settings", { max_file_bytes_per_user: bound })).status,
        200,
      );
      const usage = async () => (await user.get("/api/files?limit=1")).body.usage;
      assertEquals(await usage(), { bytes: used, max_bytes: bound }, "every file, not a page");
      const before = await storedFiles(a, first.uid);
      const fits = await user.post("/api/files", form(new Uint8Array(2000), "fits.bin", ""));
      assertEquals(fits.status, 200);
      assertEquals(await usage(), { bytes: used + 2000, max_bytes: bound });
      const over = await user.post("/api/files", form(new Uint8Array(1001), "over.bin", ""));
      assertEquals([over.status, over.body.errors], [400, [{
        message: `Your files may take at most ${bound} bytes, and this one would make ${
          used + 3001
        }: delete some first.`,
        path: "/file",
      }]]);
      assertEquals(
        await storedFiles(a, first.uid),
        [...before, fits.body.files[0].id].sort(),
        "nothing of it kept",
      );
      // Replacing a file counts its new size, not both.
      const again = await user.post(
        "/api/files",
        form(new Uint8Array(3000), "fits.bin", "", { id: "quota-key" }),
      );
      assertEquals(again.status, 400, "3,000 more does not fit");
      const key = await user.post(
        "/api/files",
        form(new Uint8Array(500), "k.bin", "", { id: "quota-key" }),
      );
      assertEquals(key.status, 200);
      const grown = await user.post(
        "/api/files",
        form(new Uint8Array(1000), "k.bin", "", { id: "quota-key" }),
      );
      assertEquals(grown.status, 200, "500 replaced by 1,000: 3,000 in all");
      assertEquals(await usage(), { bytes: used + 3000, max_bytes: bound });
      await user.delete(`/api/files/${first.uid}/quota-key`);
      assertEquals((await usage()).bytes, used + 2000, "a deleted file counts no more");
      // 0: no bound.
      await admin.post("/api/settings", { max_file_bytes_per_user: 0 });
      assertEquals(await usage(), { bytes: used + 2000, max_bytes: 0 });
      assertEquals(
        (await user.post("/api/files", form(new Uint8Array(MAX), "free.bin", ""))).status,
        200,
      );
      const bad = await admin.post("/api/settings", { max_file_bytes_per_user: -1 });
      assertEquals([bad.status, bad.body.errors[0].path], [400, "/body/max_file_bytes_per_user"]);
    });

    await t.step("delete removes only the caller's own files", async () => {
      const foreign = await admin.delete(`/api/files/${first.uid}/${first.id}`);
      assertEquals(foreign.status, 200);
      assertEquals(foreign.body.deleted, 0);
      assertEquals((await raw(first.url)).status, 200);
      const list = (await user.get("/api/files?limit=2")).body.files;
      const ids = [first.id, ...list.map((f: { id: string }) => f.id), "nosuchid"].join(",");
      const own = await user.delete(`/api/files/${first.uid}/${ids}`);
      assertEquals(own.body.deleted, 3);
      const gone = await raw(first.url);
      await gone.body?.cancel();
      assertEquals(gone.status, 404);
      assert(!(await storedFiles(a, first.uid)).includes(first.id));
    });

    await t.step("deleting the user removes their files", async () => {
      const up = await user.post("/api/files", form("bye", "bye.txt", "text/plain"));
      const res = await admin.delete("/api/user/user@example.com");
      assertEquals(res.status, 200);
      const gone = await raw(up.body.files[0].url);
      await gone.body?.cancel();
      assertEquals(gone.status, 404);
      assertEquals(await storedFiles(a, first.uid), []);
    });
  } finally {
    await a.close();
  }
});

Deno.test("files: a name is kept as UTF-8, without controls or marks that reverse text", async () => {
  const a = await startApp();
  try {
    const { user } = await adminAndUser(a);
    const name = async (filename: string) => {
      const res = await user.post("/api/files", form("x", filename, "text/plain"));
      assertEquals(res.status, 200, JSON.stringify(res.body));
      return res.body.files[0].filename;
    };
    // Browsers send the name as UTF-8 bytes, as FormData does here.
    assertEquals(await name("café.txt"), "café.txt");
    assertEquals(await name("日本.txt"), "日本.txt");
    // U+202E shows "evil\u202Egnp.html" as "evillmth.png".
    assertEquals(await name("evil\u202Egnp.html"), "evilgnp.html");
    assertEquals(await name("a\u2066b\u200fc.txt"), "abc.txt");
  } finally {
    await a.close();
  }
});
