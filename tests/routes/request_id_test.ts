/** Every answer names its request in X-Request-Id, the id the log lines carry. */
import { assert, assertEquals, assertNotEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { JSON_BODY_LIMIT } from "../../http/body.ts";

Deno.test("request ids: on every kind of answer, a proxy's own id kept", async () => {
  const a = await startApp();
  try {
    const cookie = await a.register("ids@example.com");
    const answers = {
      api: await a.request("/api/user", { headers: { cookie } }),
      anonymous: await a.request("/api/user"),
      unknown: await a.request("/api/no/such/operation"),
      notFound: await a.request("/no-such-page.png"),
      badEscape: await a.request("/api/user/%E0%A4%A"),
      page: await a.request("/login"),
      tooLarge: await a.request("/api/user/login", {
        method: "POST",
        body: "x".repeat(JSON_BODY_LIMIT + 1),
        headers: { "content-type": "application/json" },
      }),
    };
    const ids = new Set<string>();
    for (const [what, res] of Object.entries(answers)) {
      const id = res.headers.get("x-request-id");
      assert(id && /^[\w-]{6,}$/.test(id), `${what}: ${id}`);
      ids.add(id);
    }
    assertEquals(ids.size, Object.keys(answers).length, "one id per request");
    assertEquals(answers.badEscape.status, 400);
    assertEquals(answers.tooLarge.status, 413);
    assertEquals((answers.tooLarge.body as { errors: unknown[] }).errors, [{
      message: `The request body is larger than the limit of ${JSON_BODY_LIMIT} bytes.`,
      path: "/body",
    }]);

    const kept = await a.request("/api/user", { headers: { "x-request-id": "proxy-42_a=" } });
    assertEquals(kept.headers.get("x-request-id"), "proxy-42_a=");
    for (const bad of ["two words", "x".repeat(65), "a\u00e9"]) {
      const res = await a.request("/api/user", { headers: { "x-request-id": bad } });
      assertNotEquals(res.headers.get("x-request-id"), bad);
      assert(/^[\w-]+$/.test(res.headers.get("x-request-id") ?? ""), bad);
    }
  } finally {
    await a.close();
  }
});
