/**
 * Request validation (http/validate.ts): a failure is an ApiError whose `path` is a JSON pointer
 * to the field, and a JSON body is refused by type, syntax, shape and size before the schema sees
 * it.
 */
import { Hono } from "hono";
import { z } from "zod";
import { assert, assertEquals } from "../../support/assert.ts";
import { ApiError } from "../../../http/errors.ts";
import { isJson, jsonBody, queryParams, validate } from "../../../http/validate.ts";
import { JSON_BODY_LIMIT } from "../../../http/body.ts";
import type { AppEnv } from "../../../http/env.ts";

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert(err instanceof ApiError, `not an ApiError: ${err}`);
    return err;
  }
  throw new Error("nothing was thrown");
}

Deno.test("validate: every issue becomes an item with a JSON pointer, the first on top", () => {
  const schema = z.object({ name: z.string(), "a/b": z.object({ "~x": z.number() }) });
  const err = thrown(() => validate(schema, { "a/b": { "~x": "1" } }, "/body"));
  assertEquals(err.status, 400);
  assertEquals(err.errors.map((e) => e.path), ["/body/name", "/body/a~1b/~0x"]);
  assertEquals(err.message, err.errors[0].message);
  assertEquals(validate(schema, { name: "n", "a/b": { "~x": 1 } }, "/body").name, "n");
  assertEquals(
    thrown(() => validate(z.array(z.string()), [1], "/query")).errors[0].path,
    "/query/0",
  );
});

Deno.test("isJson: application/json with or without parameters, any case", () => {
  assertEquals(isJson("application/json"), true);
  assertEquals(isJson("Application/JSON; charset=utf-8"), true);
  assertEquals(isJson("text/plain"), false);
  assertEquals(isJson("application/json-patch+json"), false);
  assertEquals(isJson(undefined), false);
});

const schema = z.object({ n: z.number().optional() });

/** The status and the first error (or the body read) of a POST with `body` and `type`. */
async function post(
  body: string | undefined,
  type = "application/json",
  opts: { required?: boolean; limit?: number } = {},
) {
  const app = new Hono<AppEnv>();
  app.onError((err, c) =>
    err instanceof ApiError
      ? c.json({ status: err.status, ...err.errors[0] })
      : c.json({ unexpected: String(err) })
  );
  app.post("/x", async (c) => {
    if (opts.limit) c.set("bodyLimit", opts.limit);
    return c.json({ status: 200, body: await jsonBody(c, schema, opts) });
  });
  const res = await app.request("/x", { method: "POST", body, headers: { "content-type": type } });
  return await res.json();
}

Deno.test("JSON bodies: read, or refused with the status and pointer that say why", async () => {
  assertEquals(await post('{"n": 1}'), { status: 200, body: { n: 1 } });
  assertEquals(await post(""), { status: 200, body: {} }, "an empty body is an empty object");
  assertEquals(await post("", "application/json", { required: true }), {
    status: 400,
    message: "Missing property.",
    path: "/body",
  });
  assertEquals((await post('{"n": 1}', "text/plain")).status, 415);
  assertEquals((await post('{"n": 1}', "text/plain")).path, "/header/content-type");
  assertEquals(await post("{n: 1}"), {
    status: 400,
    message: "The body is not valid JSON.",
    path: "/body",
  });
  for (const body of ["[1]", "null", "3"]) {
    assertEquals((await post(body)).message, "The body must be a JSON object.", body);
  }
  assertEquals((await post('{"n": "one"}')).path, "/body/n");
});

Deno.test("JSON bodies: the operation's own limit, else JSON_BODY_LIMIT", async () => {
  const big = JSON.stringify({ pad: "x".repeat(JSON_BODY_LIMIT) });
  assertEquals((await post(big)).status, 413);
  assertEquals((await post(big, "application/json", { limit: 2 * JSON_BODY_LIMIT })).status, 200);
  assertEquals((await post('{"n": 12345}', "application/json", { limit: 8 })).status, 413);
});

Deno.test("query parameters: each name's first value, refused at /query", async () => {
  const app = new Hono();
  app.onError((err, c) => c.json((err as ApiError).errors[0]));
  app.get("/q", (c) => c.json(queryParams(c, z.object({ limit: z.enum(["1", "2"]) }))));
  assertEquals(await (await app.request("/q?limit=2&limit=3")).json(), { limit: "2" });
  assertEquals((await (await app.request("/q?limit=3")).json()).path, "/query/limit");
});
