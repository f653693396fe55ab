/**
 * Reading an upload form (files/upload.ts): the file part is spooled to disk and counted, stopped
 * at the byte past the limit, and every refusal is an `invalid` DomainError with the pointer of
 * what was wrong, leaving no spool file behind.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { DomainError } from "../../../lib/errors.ts";
import {
  cleanFileName,
  FIELD_LIMIT,
  FORM_OVERHEAD,
  readUploadForm,
  Spool,
} from "../../../files/upload.ts";

const LIMIT = 1000;

function multipart(fields: Record<string, string | Blob>, name = "a.bin"): Request {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Blob) form.append(k, v, name);
    else form.append(k, v);
  }
  return new Request("http://p.test/upload", { method: "POST", body: form });
}

function urlencoded(fields: Record<string, string>): Request {
  return new Request("http://p.test/upload", {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/** Runs `fn` with a fresh spool folder; checks that it holds nothing when `fn` is done. */
async function inDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "parley-upload-test-" });
  try {
    await fn(dir);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), [], "a spool file was left");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The DomainError `readUploadForm` refuses `req` with, as `path: message`. */
async function refusal(req: Request, dir: string, limit = LIMIT): Promise<string> {
  try {
    const form = await readUploadForm(req, dir, limit);
    await form.spool.discard();
  } catch (err) {
    assert(err instanceof DomainError && err.kind === "invalid", `${err}`);
    return `${err.path}: ${err.message}`;
  }
  return "accepted";
}

async function text(spool: Spool): Promise<string> {
  return await new Response(await spool.readable()).text();
}

Deno.test("upload form: the file part is spooled with its name, type and the other fields", async () => {
  await inDir(async (dir) => {
    const bytes = new Blob(["x".repeat(LIMIT)], { type: "image/png" });
    const form = await readUploadForm(multipart({ id: "abc", file: bytes }, "cat.png"), dir, LIMIT);
    try {
      assertEquals([form.name, form.claimedType, form.text], ["cat.png", "image/png", false]);
      assertEquals(form.fields, { id: "abc" });
      assertEquals(form.spool.size, LIMIT, "exactly the limit is allowed");
      assertEquals(await text(form.spool), "x".repeat(LIMIT));
      assertEquals(((await Deno.stat(form.spool.path)).mode ?? 0) & 0o777, 0o600);
    } finally {
      await form.spool.discard();
    }
  });
});

Deno.test("upload form: urlencoded, `file` is the text itself, named paste.txt", async () => {
  await inDir(async (dir) => {
    const form = await readUploadForm(urlencoded({ file: "some text" }), dir, LIMIT);
    assertEquals([form.name, form.claimedType, form.text], ["paste.txt", undefined, true]);
    assertEquals(await text(form.spool), "some text");
    await form.spool.discard();
  });
});

Deno.test("upload form: one byte past the limit is Convos's error at /file", async () => {
  await inDir(async (dir) => {
    const tooBig = new Blob(["x".repeat(LIMIT + 1)]);
    assertEquals(
      await refusal(multipart({ file: tooBig }), dir),
      "/file: Maximum message size exceeded",
    );
    assertEquals(
      await refusal(urlencoded({ file: "y".repeat(LIMIT + 1) }), dir),
      "/file: Maximum message size exceeded",
    );
  });
});

Deno.test("upload form: a declared length past the limit and framing is refused unread", async () => {
  await inDir(async (dir) => {
    // A body as long as declared, pulled 1 KB at a time: reading it would take many pulls.
    let pulls = 0;
    const body = new ReadableStream({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const req = new Request("http://p.test/upload", {
      method: "POST",
      body,
      headers: {
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(LIMIT + FORM_OVERHEAD + 1),
      },
    });
    assertEquals(await refusal(req, dir), "/file: Maximum message size exceeded");
    assert(pulls <= 1, `${pulls} pulls`); // the stream's own first pull, before anyone reads
  });
});

Deno.test("upload form: a field other than file holds at most FIELD_LIMIT bytes", async () => {
  await inDir(async (dir) => {
    const file = new Blob(["x"]);
    const long = "é".repeat(FIELD_LIMIT / 2) + "x"; // counted in bytes, not characters
    assertEquals(
      await refusal(multipart({ "a/b~c": long, file }), dir),
      `/body/a~1b~0c: A field may hold at most ${FIELD_LIMIT} bytes.`,
    );
    assertEquals(
      // With a larger limit, so that the parser does not cut the field first.
      await refusal(urlencoded({ note: long, file: "text" }), dir, 10 * FIELD_LIMIT),
      `/body/note: A field may hold at most ${FIELD_LIMIT} bytes.`,
    );
    assertEquals(
      await refusal(multipart({ note: "é".repeat(FIELD_LIMIT / 2), file }), dir),
      "accepted",
    );
  });
});

Deno.test("upload form: no form, another type, no file, or a file sent as text", async () => {
  await inDir(async (dir) => {
    const post = (body?: string, type?: string) =>
      new Request("http://p.test/upload", {
        method: "POST",
        body,
        headers: type ? { "content-type": type } : {},
      });
    assertEquals(await refusal(post(), dir), "/file: No upload.");
    assertEquals(
      await refusal(post("{}", "application/json"), dir),
      "/body: Send the file as multipart/form-data or urlencoded form data.",
    );
    assertEquals(await refusal(urlencoded({ id: "1" }), dir), "/body/file: file is required.");
    assertEquals(await refusal(urlencoded({ file: "" }), dir), "/body/file: file is required.");
    assertEquals(
      await refusal(multipart({ file: "t".repeat(FIELD_LIMIT + 1) }), dir),
      "/body/file: Send the file as a file part (with a file name).",
    );
    assertEquals(
      await refusal(post("--x\r\nnonsense", "multipart/form-data"), dir),
      "/body: The form data could not be read.",
      "multipart without a boundary",
    );
  });
});

Deno.test("spool: a write that would pass the limit is refused before it is written", async () => {
  await inDir(async (dir) => {
    const spool = await Spool.create(dir, 4);
    await spool.write(new Uint8Array([1, 2, 3]));
    let refused = false;
    await spool.write(new Uint8Array([4, 5])).catch(() => refused = true);
    assert(refused);
    assertEquals(spool.size, 3);
    assertEquals(
      new Uint8Array(await new Response(await spool.readable()).arrayBuffer()),
      new Uint8Array([1, 2, 3]),
    );
    await spool.discard();
  });
});

Deno.test("upload names: the base name, without controls or text-direction marks, whole characters", () => {
  assertEquals(cleanFileName("café.txt"), "café.txt");
  assertEquals(cleanFileName("../../etc/passwd"), "passwd");
  assertEquals(cleanFileName("AC\\DC.mp3"), "AC\\DC.mp3", "a backslash is a letter");
  assertEquals(cleanFileName("evil\u202Egnp.html"), "evilgnp.html");
  assertEquals(cleanFileName("a\u0000b\u009fc\u2066d"), "abcd");
  assertEquals(cleanFileName(" \u200f "), "upload");
  assertEquals(cleanFileName(undefined), "upload");
  // 254 letters and an emoji (two UTF-16 units): cut after the emoji, never inside it.
  const long = "a".repeat(254) + "😀" + "b";
  assertEquals(cleanFileName(long), "a".repeat(254) + "😀");
});
