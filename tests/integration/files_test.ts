import { assert, assertEquals } from "../support/assert.ts";
import { adminAndUser } from "../support/api.ts";
import { startServer } from "../support/server.ts";

async function filesOnDisk(home: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const user of Deno.readDir(`${home}/files`)) {
      for await (const f of Deno.readDir(`${home}/files/${user.name}`)) {
        out.push(`${user.name}/${f.name}`);
      }
    }
  } catch { /* no files folder yet */ }
  return out.sort();
}

function form(
  name: string,
  content: string,
  type = "text/plain",
  extra: Record<string, string> = {},
) {
  const fd = new FormData();
  fd.append("file", new File([content], name, { type }));
  for (const [k, v] of Object.entries(extra)) fd.append(k, v);
  return fd;
}

Deno.test("files: upload, page, download, hide write-only, delete, limits, safe headers", async (t) => {
  const server = await startServer({ env: { PARLEY_MAX_UPLOAD_SIZE: "2000" } });
  try {
    const { admin, user } = await adminAndUser(server.url);
    const uploaded: { id: string; url: string; uid: string }[] = [];

    await t.step("upload needs a login", async () => {
      const anon = await fetch(`${server.url}/api/files`, {
        method: "POST",
        body: form("a.txt", "x"),
      });
      assertEquals(anon.status, 401);
      await anon.body?.cancel();
    });

    await t.step("upload multipart and urlencoded", async () => {
      const res = await user.post("/api/files", form("hello.txt", "hello world"));
      assertEquals(res.status, 200, JSON.stringify(res.body));
      const f = res.body.files[0];
      assertEquals(f.ext, "txt");
      assertEquals(f.filename, "hello.txt");
      assert(/^[\w-]{22}$/.test(f.id), f.id);
      assert(f.url.endsWith(`/api/files/${f.uid}/${f.id}`), f.url);
      assert(/Z$/.test(f.saved));
      uploaded.push(f);
      const enc = await user.post(
        "/api/files",
        new URLSearchParams({ file: "pasted text" }),
      );
      assertEquals(enc.status, 200, JSON.stringify(enc.body));
      assertEquals(enc.body.files[0].filename, "paste.txt");
      uploaded.push(enc.body.files[0]);
      const missing = await user.post("/api/files", new URLSearchParams({ id: "x" }));
      assertEquals(missing.status, 400);
      assertEquals(missing.body.errors[0].path, "/body/file");
    });

    await t.step("download anonymously, with its type", async () => {
      const res = await fetch(uploaded[0].url);
      assertEquals(res.status, 200);
      assertEquals(await res.text(), "hello world");
      assertEquals(res.headers.get("content-type"), "text/plain; charset=utf-8");
      assertEquals(res.headers.get("x-content-type-options"), "nosniff");
      assert(res.headers.get("content-disposition")!.startsWith("inline"));
      const pasted = await fetch(uploaded[1].url);
      assertEquals(await pasted.text(), "pasted text");
      const unknown = await fetch(
        `${server.url}/api/files/${uploaded[0].uid}/AAAAAAAAAAAAAAAAAAAAAA`,
      );
      assertEquals(unknown.status, 404);
      await unknown.body?.cancel();
    });

    await t.step("write_only files are not served", async () => {
      const res = await user.post(
        "/api/files",
        form("secret.txt", "s3cret", "text/plain", { write_only: "true" }),
      );
      assertEquals(res.status, 200);
      const get = await fetch(res.body.files[0].url);
      assertEquals(get.status, 404);
      assert(!(await get.text()).includes("s3cret"));
    });

    await t.step("HTML and SVG go out as sandboxed attachments", async () => {
      for (
        const [name, body, type] of [
          ["page.html", "<script>alert(1)</script>", "text/html"],
          [
            "pic.svg",
            '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "image/svg+xml",
          ],
          ["data.xml", "<a/>", "text/xml"],
          ["fake.png", "<html><script>alert(1)</script>", "text/html"],
        ]
      ) {
        const up = await user.post("/api/files", form(name, body, type));
        assertEquals(up.status, 200);
        const res = await fetch(up.body.files[0].url);
        await res.body?.cancel();
        assertEquals(res.headers.get("x-content-type-options"), "nosniff");
        if (name === "fake.png") {
          // Typed by its extension and never sniffed, so the markup cannot run.
          assertEquals(res.headers.get("content-type"), "image/png");
          continue;
        }
        assert(res.headers.get("content-disposition")!.startsWith("attachment"), name);
        assertEquals(res.headers.get("content-security-policy"), "sandbox");
      }
    });

    const listed: string[] = [];
    await t.step("list pages newest first across more than one page", async () => {
      for (let i = 0; i < 5; i++) {
        const r = await user.post("/api/files", form(`n${i}.txt`, `n${i}`));
        assertEquals(r.status, 200);
      }
      // 2 + 1 write-only + 4 typed + 5 = 12 files
      const all = await user.get("/api/files?limit=100");
      assertEquals(all.status, 200);
      assertEquals(all.body.files.length, 12);
      assertEquals(all.body.files[0].name, "n4.txt");
      assertEquals(all.body.after, "after");
      assertEquals(all.body.next, undefined);
      assertEquals(all.body.files[0].size, 2);

      const p1 = await user.get("/api/files?limit=5");
      assertEquals(p1.body.files.map((f: { name: string }) => f.name), [
        "n4.txt",
        "n3.txt",
        "n2.txt",
        "n1.txt",
        "n0.txt",
      ]);
      assertEquals(p1.body.prev, undefined);
      const p2 = await user.get(`/api/files?limit=5&after=${p1.body.next}`);
      assertEquals(p2.body.files.length, 5);
      assertEquals(p2.body.after, p1.body.next);
      assertEquals(p2.body.prev, "after");
      const p3 = await user.get(`/api/files?limit=5&after=${p2.body.next}`);
      assertEquals(p3.body.files.length, 2);
      assertEquals(p3.body.next, undefined);
      assertEquals(p3.body.files[1].name, "hello.txt");
      // prev of page 3 gives page 2 again
      const back = await user.get(`/api/files?limit=5&after=${p3.body.prev}`);
      assertEquals(back.body.files, p2.body.files);
      for (const p of [p1, p2, p3]) listed.push(...p.body.files.map((f: { id: string }) => f.id));
      assertEquals(new Set(listed).size, 12);
      const same = await user.get(`/api/files?limit=5&after=prev`);
      assertEquals(same.body.files, p1.body.files);
      const bad = await user.get("/api/files?after=nope");
      assertEquals(bad.status, 400);
      assertEquals(bad.body.errors[0].path, "/query/after");
      const badLimit = await user.get("/api/files?limit=x");
      assertEquals(badLimit.body.errors[0].path, "/query/limit");
      const other = await admin.get("/api/files");
      assertEquals(other.body.files, []);
    });

    await t.step("delete: foreign ids are untouched, own ids go", async () => {
      const { uid, id, url } = uploaded[0];
      const foreign = await admin.delete(`/api/files/${uid}/${id}`);
      assertEquals(foreign.body, { deleted: 0 });
      const adminUid = (await admin.get("/api/user")).body.uid;
      const foreign2 = await admin.delete(`/api/files/${adminUid}/${id}`);
      assertEquals(foreign2.body, { deleted: 0 });
      const still = await fetch(url);
      assertEquals(still.status, 200);
      await still.body?.cancel();
      const own = await user.delete(`/api/files/${uid}/${id},${uploaded[1].id},nonexistent`);
      assertEquals(own.body, { deleted: 2 });
      const gone = await fetch(url);
      assertEquals(gone.status, 404);
      await gone.body?.cancel();
      assert(!(await filesOnDisk(server.home)).includes(`${uid}/${id}`));
    });

    await t.step("the size limit: one byte over is refused and leaves nothing", async () => {
      const before = await filesOnDisk(server.home);
      const ok = await user.post("/api/files", form("max.bin", "x".repeat(2000)));
      assertEquals(ok.status, 200);
      const over = await user.post("/api/files", form("over.bin", "x".repeat(2001)));
      assertEquals(over.status, 413);
      assertEquals(over.body.errors[0].path, "/body/file");
      const after = await filesOnDisk(server.home);
      assertEquals(after.length, before.length + 1);
      assert(!after.some((f) => f.includes(".upload-")));
      // A body far over the limit is refused by its Content-Length before it is read.
      const huge = await user.post("/api/files", form("huge.bin", "x".repeat(200_000)));
      assertEquals(huge.status, 413);
      // A streamed body with no Content-Length is counted as it arrives.
      const chunks = new ReadableStream<Uint8Array>({
        start(ctl) {
          const enc = new TextEncoder();
          ctl.enqueue(
            enc.encode(
              '--B\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n\r\n',
            ),
          );
          for (let i = 0; i < 10; i++) ctl.enqueue(enc.encode("y".repeat(500)));
          ctl.enqueue(enc.encode("\r\n--B--\r\n"));
          ctl.close();
        },
      });
      const streamed = await fetch(`${server.url}/api/files`, {
        method: "POST",
        body: chunks,
        headers: { "content-type": "multipart/form-data; boundary=B", cookie: user.cookieHeader },
      });
      assertEquals(streamed.status, 413);
      await streamed.body?.cancel();
      const enc = await user.post("/api/files", new URLSearchParams({ file: "z".repeat(2001) }));
      assertEquals(enc.status, 413);
      assertEquals((await filesOnDisk(server.home)).length, after.length);
    });

    await t.step("a deleted user's files go too", async () => {
      const uid = uploaded[0].uid;
      const res = await admin.delete("/api/user/user@example.com");
      assertEquals(res.status, 200);
      assertEquals((await filesOnDisk(server.home)).filter((f) => f.startsWith(`${uid}/`)), []);
    });
  } finally {
    await server.close();
  }
});
