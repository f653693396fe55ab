/**
 * Malformed percent-encoding in any path is a 400 or 404, never a 500, and a user's email in a
 * path is decoded once.
 * In process, through `app.request()`.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { captureErrors, startApp } from "../support/app.ts";

Deno.test("path encoding: malformed percent-encoding is a 400 or 404, never a 500", async (t) => {
  const a = await startApp();
  try {
    const cookie = await a.register("admin@example.com");
    await t.step("bad escapes in any path", async () => {
      const paths = [
        "/%",
        "/%E0%A4%A",
        "/%zz",
        "/api/%",
        "/api/%E0%A4%A",
        "/api/user/%",
        "/api/files/1/%",
        "/chat/%",
        "/dist/%",
        "/api/user/%E0%A4%A/invite",
        "/api/notifications?before=%",
      ];
      const { value: results, lines } = await captureErrors(() =>
        Promise.all(paths.map((p) => a.request(p, { headers: { cookie } })))
      );
      for (const [i, res] of results.entries()) {
        assert([400, 404, 501].includes(res.status), `${paths[i]}: ${res.status}`);
        assertEquals(typeof res.body.errors[0].message, "string", paths[i]);
      }
      const posted = await captureErrors(() =>
        Promise.all(
          ["/api/user/%", "/api/user/%E0%A4%A/invite"].map((p) =>
            a.request(p, { method: "POST", headers: { cookie }, body: "{}" })
          ),
        )
      );
      for (const res of posted.value) assert([400, 404].includes(res.status), `${res.status}`);
      // A cursor with a bad escape names no file: Convos's empty page (web-files.t:168).
      const cursor = await a.request("/api/files?after=%E0%A4%A", { headers: { cookie } });
      assertEquals([cursor.status, cursor.body.files, cursor.body.next], [200, [], undefined]);
      assertEquals([...lines, ...posted.lines], [], "nothing is logged as an error");
    });
    await t.step("a user's email in the path is decoded once", async () => {
      // %2540 is "%40" once decoded: an email with a literal "%40", not "@".
      const res = await a.request("/api/user/admin%2540example.com", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: "{}",
      });
      assertEquals(res.status, 400);
      assertEquals(res.body.errors[0].path, "/params/email");
      const plain = await a.request("/api/user/admin%40example.com", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ highlight_keywords: ["x"] }),
      });
      assertEquals(plain.status, 200);
    });
  } finally {
    await a.close();
  }
});
