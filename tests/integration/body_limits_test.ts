/**
 * Request bodies are limited while they stream: a JSON body by its declared length or as its
 * chunks pass the limit, an upload form's fields and its whole size.
 * In process, through `app.request()`.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { JSON_BODY_LIMIT } from "../../http/body.ts";

/** A body stream that yields `chunk` up to `total` bytes and counts what was pulled from it. */
function countingBody(total: number, chunkSize = 16 * 1024) {
  const state = { pulled: 0, cancelled: false };
  const chunk = new TextEncoder().encode("x".repeat(chunkSize));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= total) return controller.close();
      state.pulled += chunk.length;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

Deno.test("body limits: JSON bodies are limited while they stream", async (t) => {
  const a = await startApp();
  try {
    await t.step("a declared Content-Length over the limit is refused before reading", async () => {
      const { stream, state } = countingBody(200 * 1024 * 1024);
      const res = await a.request("/api/user/login", {
        method: "POST",
        body: stream,
        headers: {
          "content-type": "application/json",
          "content-length": String(150 * 1024 * 1024),
        },
        duplex: "half",
      } as RequestInit);
      assertEquals(res.status, 413);
      assertEquals(res.body.errors[0].path, "/body");
      assertStringIncludes(res.body.errors[0].message, String(JSON_BODY_LIMIT));
      assert(state.pulled <= 64 * 1024, `read ${state.pulled} bytes of a refused body`);
    });

    await t.step("a chunked body is cut at the chunk that passes the limit", async () => {
      const { stream, state } = countingBody(200 * 1024 * 1024);
      const res = await a.request("/api/user/register", {
        method: "POST",
        body: stream,
        headers: { "content-type": "application/json" },
        duplex: "half",
      } as RequestInit);
      assertEquals(res.status, 413);
      assertEquals(res.body.errors[0].path, "/body");
      // Stream internals may pull a few chunks ahead; far from the 200 MB offered.
      assert(state.pulled < JSON_BODY_LIMIT + 256 * 1024, `pulled ${state.pulled} bytes`);
      assert(state.cancelled, "the body stream was cancelled");
    });

    await t.step("a body at the limit is still read", async () => {
      const pad = "x".repeat(JSON_BODY_LIMIT - 200);
      const res = await a.post("/api/user/login", { email: "a@example.com", password: "p", pad });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].message, "Invalid email or password.");
    });

    await t.step("sending a message may carry 65,536 escaped characters", async () => {
      const cookie = await a.register("admin@example.com");
      const res = await a.post(
        "/api/connection/irc-none/conversation/%23x/messages",
        { message: "\u0001".repeat(65_536) },
        { cookie },
      );
      // Past the body limit: the 404 of the unknown connection, not a 413.
      assertEquals(res.status, 404);
    });
  } finally {
    await a.close();
  }
});

Deno.test("body limits: upload form fields are small and the form is counted", async (t) => {
  const a = await startApp({ PARLEY_MAX_UPLOAD_SIZE: "5000" });
  try {
    const cookie = await a.register("admin@example.com");
    await t.step("a field other than file may hold at most 1 KB", async () => {
      const form = new FormData();
      form.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
      form.set("id", "i".repeat(1025));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/body/id");
      const urlencoded = await a.request("/api/files", {
        method: "POST",
        body: new URLSearchParams({ file: "text", write_only: "y".repeat(2000) }),
        headers: { cookie },
      });
      assertEquals(urlencoded.status, 400);
      assertEquals(urlencoded.body.errors[0].path, "/body/write_only");
      const ok = new FormData();
      ok.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
      ok.set("write_only", "y".repeat(1024));
      const fine = await a.request("/api/files", { method: "POST", body: ok, headers: { cookie } });
      assertEquals(fine.status, 200);
    });

    await t.step("a form without Content-Length is cut once past the limit", async () => {
      const prefix = new TextEncoder().encode("write_only=");
      const { stream: tail, state } = countingBody(20 * 1024 * 1024);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(prefix);
        },
        async pull(controller) {
          const reader = tail.getReader();
          const { done, value } = await reader.read();
          reader.releaseLock();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: () => tail.cancel(),
      });
      const res = await a.request("/api/files", {
        method: "POST",
        body,
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        duplex: "half",
      } as RequestInit);
      // Convos's status and wording for an upload over the limit (web-files.t:145).
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].message, "Maximum message size exceeded");
      assert(state.pulled < 1024 * 1024, `pulled ${state.pulled} bytes`);
    });
  } finally {
    await a.close();
  }
});
