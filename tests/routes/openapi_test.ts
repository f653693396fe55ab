// deno-lint-ignore-file no-explicit-any -- the document is JSON read by key
/**
 * The API contract (protocol/contract) against the app: every route of the Hono app is an operation
 * of the document written from it and the reverse, path parameters carry the same names, each
 * route reads its body and query with its operation's schemas (a wrong value is a 400 at its
 * pointer), and the document differs from Convos 8.07's exactly as docs/api.md lists.
 * openapi_responses_test.ts checks real answers against the response schemas.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { z } from "zod";
import { startApp } from "../support/app.ts";
import { deref, openapi, operations, parametersOf } from "../support/openapi.ts";
import { API, bodyOf, type OperationId } from "../../protocol/contract/mod.ts";
import { surface, surfaceDiff } from "../support/api_surface.ts";
import { TYPES } from "../../protocol/messages.ts";

/** `METHOD /path/{param}` of every /api route of the app (Hono's `:param{regex}` rewritten). */
async function appRoutes(): Promise<string[]> {
  const app = await startApp();
  try {
    const out = new Set<string>();
    for (const r of app.app.routes) {
      if (r.method === "ALL" || !r.path.startsWith("/api/")) continue;
      const path = r.path.slice(4).replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
      out.add(`${r.method} ${path}`);
    }
    return [...out].sort();
  } finally {
    await app.close();
  }
}

/** Each documented operation, and its format variants (`x-formats`: `/embed.html`...). */
function documentedRoutes(): string[] {
  const out: string[] = [];
  for (const op of operations()) {
    out.push(`${op.method} ${op.path}`);
    for (const f of op.spec["x-formats"] ?? []) {
      if (f !== "json") out.push(`${op.method} ${op.path}.${f}`); // .json: every operation
    }
  }
  return out.sort();
}

Deno.test("every route of the app is documented, and every documented operation is a route", async () => {
  const routes = await appRoutes();
  const documented = documentedRoutes();
  assertEquals(
    { undocumented: routes.filter((r) => !documented.includes(r)) },
    { undocumented: [] },
  );
  assertEquals({ noRoute: documented.filter((r) => !routes.includes(r)) }, { noRoute: [] });
});

Deno.test("operation ids are unique and every $ref resolves", () => {
  const ids = operations().map((o) => o.operationId);
  assertEquals(ids.filter((id, i) => ids.indexOf(id) !== i), []);
  const walk = (node: any): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    if (typeof node.$ref === "string") deref(node);
    Object.values(node).forEach(walk);
  };
  walk(openapi);
});

Deno.test("path parameters are declared for every {name} of the path, and only those", () => {
  for (const op of operations()) {
    const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const declared = parametersOf(op).filter((p) => p.in === "path").map((p) => p.name).sort();
    assertEquals(declared, inPath, `${op.operationId}`);
    for (const p of parametersOf(op).filter((p) => p.in === "path")) {
      assertEquals(p.required, true, `${op.operationId} path parameter ${p.name}`);
    }
  }
});

/** The JSON schema zod gives for what a client sends (the input side of transforms). */
function inputSchema(schema: z.ZodType): any {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
}

/** The JSON types a zod-made schema allows (`anyOf` flattened); empty when it says nothing. */
function zodTypes(s: any): string[] {
  if (!s) return [];
  if (Array.isArray(s.type)) return s.type;
  if (s.type) return [s.type];
  if (s.anyOf) return [...new Set(s.anyOf.flatMap(zodTypes))] as string[];
  return [];
}

/** A JSON value of a type that `schema` (zod's JSON schema of one property) does not allow. */
function wrongValue(schema: any): unknown {
  const allowed = zodTypes(schema);
  const candidates: [string[], unknown][] = [
    [["number", "integer"], 12345],
    [["string"], "x"],
    [["boolean"], true],
    [["array"], ["x"]],
    [["object"], {}],
  ];
  return candidates.find(([types]) => !types.some((t) => allowed.includes(t)))![1];
}

/** An admin with a connection, and the values of the path parameters the checks below use. */
async function withConnection<T>(
  fn: (admin: any, path: (template: string) => string) => Promise<T>,
): Promise<T> {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const conn = await admin.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=admin",
      wanted_state: "disconnected",
    });
    const ids: Record<string, string> = {
      connection_id: conn.body.connection_id,
      conversation_id: "%23test",
      email: "admin@example.com",
    };
    const path = (template: string) =>
      "/api" + template.replace(/\{(\w+)\}/g, (_, name) => ids[name]);
    return await fn(admin, path);
  } finally {
    await a.close();
  }
}

/** Operations whose JSON body a route reads with its schema (a webhook's is its provider's). */
const bodyOperations = (Object.keys(API) as OperationId[])
  .filter((id) => id !== "webhook" && "body" in API[id]);

Deno.test("each route reads its body with its operation's schema (a wrong type is a 400 there)", async () => {
  const errors: string[] = [];
  await withConnection(async (admin, path) => {
    for (const id of bodyOperations) {
      const op = API[id];
      const schema = bodyOf(id as Parameters<typeof bodyOf>[0]);
      for (const [name, prop] of Object.entries<any>(inputSchema(schema).properties ?? {})) {
        const res = await admin.request(op.method, path(op.path), { [name]: wrongValue(prop) });
        const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
        if (res.status !== 400 || !paths.includes(`/body/${name}`)) {
          errors.push(`${id} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
  });
  assert(bodyOperations.length >= 11, "every operation with a JSON body was tried");
  assertEquals(errors, []);
});

/** A query value its schema refuses, or undefined when any text is allowed. */
function badQueryValue(prop: any): string | undefined {
  if (typeof prop.maxLength === "number") return "x".repeat(prop.maxLength + 1);
  if (prop.type === "integer") return "many";
  if (prop.type === "boolean") return "maybe";
  if (prop.format === "date-time") return "yesterday";
  return undefined;
}

Deno.test("each route reads its query with its operation's schema (a bad value is a 400 there)", async () => {
  const errors: string[] = [];
  let tried = 0;
  await withConnection(async (admin, path) => {
    for (const [id, op] of Object.entries(API)) {
      if (!("query" in op)) continue;
      const doc = operations().find((o) => o.operationId === id)!;
      for (const p of parametersOf(doc).filter((p) => p.in === "query")) {
        const value = badQueryValue(p);
        if (value === undefined) continue;
        tried++;
        const url = `${path(op.path)}?${new URLSearchParams({ [p.name]: value })}`;
        const res = await admin.request(op.method, url);
        const paths = (res.body?.errors ?? []).map((e: { path: string }) => e.path);
        if (res.status !== 400 || !paths.includes(`/query/${p.name}`)) {
          errors.push(`${id} ${p.name}=${value.slice(0, 20)}: ${res.status}`);
        }
      }
    }
  });
  assert(tried >= 20, `only ${tried} query values tried`);
  assertEquals(errors, []);
});

/** The differences docs/api.md lists under "Differences from Convos's document". */
async function listedDifferences(): Promise<string[]> {
  const doc = await Deno.readTextFile(new URL("../../docs/api.md", import.meta.url));
  const section = doc.split("\n## Differences from Convos's document\n")[1]?.split("\n## ")[0];
  const block = section?.split("```text\n")[1]?.split("```")[0];
  if (!block) throw new Error("docs/api.md has no list of differences from Convos's document");
  // `{line types}` stands for the kinds of line (LINE_KINDS), which the message `type` enums list.
  const types = [...TYPES].sort().join("|");
  return block.split("\n").map((l) => l.trim().replaceAll("{line types}", types))
    .filter((l) => l && !l.startsWith("#"));
}

Deno.test("the document differs from Convos 8.07's exactly as docs/api.md lists", async () => {
  const convos = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/convos/api-8.07-surface.json", import.meta.url)),
  );
  assertEquals([openapi.swagger, openapi.basePath], [convos.swagger, convos.basePath]);
  const found = surfaceDiff(convos.facts, surface(openapi));
  const listed = await listedDifferences();
  assertEquals({
    unlisted: found.filter((d) => !listed.includes(d)),
    listedButGone: listed.filter((d) => !found.includes(d)),
  }, { unlisted: [], listedButGone: [] });
});

Deno.test("the comparison with Convos's document sees a removed, a changed and an added fact", async () => {
  const convos = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/convos/api-8.07-surface.json", import.meta.url)),
  );
  const doc = structuredClone(openapi);
  delete doc.paths["/connections"].get;
  doc.definitions.User.properties.email.type = "integer";
  doc.definitions.Success.properties.extra = { type: "string" };
  const found = surfaceDiff(convos.facts, surface(doc));
  const listed = await listedDifferences();
  assertEquals(found.filter((d) => !listed.includes(d)), [
    "- GET /connections: listConnections",
    "+ definition Success .extra: string",
    "~ definition User .email: string, required -> integer, required",
  ]);
});
