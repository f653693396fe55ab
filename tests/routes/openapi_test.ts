// deno-lint-ignore-file no-explicit-any -- the document is JSON read by key
/**
 * routes/openapi.json is kept by hand (docs/api.md says why); these checks keep it exact to the
 * code: every route of the Hono app is an operation of the document and the reverse, path
 * parameters carry the same names, and every query parameter and body property a route's zod
 * schema reads is documented with the same type and required-ness, and nothing more.
 * A last check sends each body property a value of the wrong type, so that a route reading its
 * body with another schema than the one named here fails too. openapi_responses_test.ts checks
 * real answers against the response schemas.
 */
import { assertEquals } from "../support/assert.ts";
import { z } from "zod";
import { startApp } from "../support/app.ts";
import { deref, openapi, type Operation, operations, parametersOf } from "../support/openapi.ts";
import { API, bodyOf } from "../../http/contract/mod.ts";

/** The zod schemas each operation validates its query string and JSON body with. */
const SCHEMAS: Record<string, { query?: z.ZodType; body?: z.ZodType }> = {
  getUser: { query: API.getUser.query },
  loginUser: { body: bodyOf("loginUser") },
  registerUser: { body: bodyOf("registerUser") },
  logoutUser: { query: API.logoutUser.query },
  updateUser: { body: bodyOf("updateUser") },
  getUsers: { query: API.getUsers.query },
  updateSettings: { body: bodyOf("updateSettings") },
  saveConnectionProfile: { body: bodyOf("saveConnectionProfile") },
  createConnection: { body: bodyOf("createConnection") },
  updateConnection: { body: bodyOf("updateConnection") },
  sendMessage: { body: bodyOf("sendMessage") },
  conversationMessages: { query: API.conversationMessages.query },
  connectionMessages: { query: API.connectionMessages.query },
  searchMessages: { query: API.searchMessages.query },
  notificationMessages: { query: API.notificationMessages.query },
  getFiles: { query: API.getFiles.query },
  embed: { query: API.embed.query },
  subscribePush: { body: bodyOf("subscribePush") },
  unsubscribePush: { body: bodyOf("unsubscribePush") },
  updatePushSettings: { body: bodyOf("updatePushSettings") },
};

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

/** A documented type as a zod-made schema would spell it (an array without `type` is one). */
function docType(s: any): string | undefined {
  const d = deref(s);
  return d.type ?? (d.items ? "array" : d.properties ? "object" : undefined);
}

function queryDiff(op: Operation, schema: z.ZodType | undefined): string[] {
  const documented = parametersOf(op).filter((p) => p.in === "query");
  const props: Record<string, unknown> = schema ? inputSchema(schema).properties ?? {} : {};
  const errors: string[] = [];
  for (const p of documented) {
    if (!(p.name in props)) errors.push(`query ${p.name}: documented, not read by the route`);
  }
  for (const name of Object.keys(props)) {
    if (!documented.some((p) => p.name === name)) {
      errors.push(`query ${name}: read by the route, not documented`);
    }
  }
  // A required query parameter is one without which the route answers 400.
  const required = schema ? (inputSchema(schema).required ?? []) : [];
  for (const p of documented) {
    if (p.name in props && Boolean(p.required) !== required.includes(p.name)) {
      errors.push(`query ${p.name}: required ${Boolean(p.required)} in the document, not in zod`);
    }
  }
  return errors;
}

function bodyDiff(op: Operation, schema: z.ZodType | undefined): string[] {
  const param = parametersOf(op).find((p) => p.in === "body");
  const errors: string[] = [];
  if (!param) return schema ? ["body: read by the route, not documented"] : [];
  const doc = deref(param.schema);
  // A free-form body (webhook payloads) names no properties and is read by its provider's rules.
  if (!doc.properties && !schema) return [];
  if (!schema) return ["body: documented, no zod schema known for it (add it to SCHEMAS)"];
  const zs = inputSchema(schema);
  const zprops: Record<string, any> = zs.properties ?? {};
  // Properties the server returns but never reads (readOnly) belong to the answer only.
  const dprops = Object.fromEntries(
    Object.entries<any>(doc.properties ?? {}).filter(([, s]) => !deref(s).readOnly),
  );
  for (const name of Object.keys(dprops)) {
    if (!(name in zprops)) errors.push(`body ${name}: documented, not read by the route`);
  }
  for (const [name, s] of Object.entries(zprops)) {
    if (!(name in dprops)) {
      errors.push(`body ${name}: read by the route, not documented`);
      continue;
    }
    const want = docType(dprops[name]);
    const got = zodTypes(s);
    if (
      want && got.length && !got.includes(want) && !(want === "number" && got.includes("integer"))
    ) {
      errors.push(`body ${name}: type ${want} in the document, ${got.join("|")} in zod`);
    }
  }
  const zreq = new Set<string>(zs.required ?? []);
  const dreq = new Set<string>(doc.required ?? []);
  for (const name of Object.keys(zprops)) {
    if (zreq.has(name) !== dreq.has(name)) {
      errors.push(
        `body ${name}: required ${dreq.has(name)} in the document, ${zreq.has(name)} in zod`,
      );
    }
  }
  return errors;
}

Deno.test("query parameters and body properties match the routes' zod schemas", () => {
  const errors: string[] = [];
  for (const op of operations()) {
    const known = SCHEMAS[op.operationId] ?? {};
    for (const e of [...queryDiff(op, known.query), ...bodyDiff(op, known.body)]) {
      errors.push(`${op.operationId}: ${e}`);
    }
  }
  for (const id of Object.keys(SCHEMAS)) {
    if (!operations().some((o) => o.operationId === id)) errors.push(`${id}: no such operation`);
  }
  assertEquals(errors, []);
});

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

Deno.test("each route reads its body with the schema SCHEMAS names (a wrong type is a 400 there)", async () => {
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
    const errors: string[] = [];
    for (const op of operations()) {
      const schema = SCHEMAS[op.operationId]?.body;
      if (!schema) continue;
      const path = "/api" + op.path.replace(/\{(\w+)\}/g, (_, name) => ids[name]);
      for (const [name, prop] of Object.entries<any>(inputSchema(schema).properties ?? {})) {
        const res = await admin.request(op.method, path, { [name]: wrongValue(prop) });
        const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
        if (res.status !== 400 || !paths.includes(`/body/${name}`)) {
          errors.push(`${op.operationId} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    assertEquals(errors, []);
  } finally {
    await a.close();
  }
});

Deno.test("the document keeps all of Convos 8.07's API (tests/fixtures/convos/api-8.07-surface.json)", async () => {
  const convos = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/convos/api-8.07-surface.json", import.meta.url)),
  );
  const errors: string[] = [];
  if (openapi.swagger !== convos.swagger || openapi.basePath !== convos.basePath) {
    errors.push("swagger and basePath must stay Convos's");
  }
  for (const want of convos.operations) {
    const op = operations().find((o) => o.method === want.method && o.path === want.path);
    if (!op || op.operationId !== want.operationId) {
      errors.push(`${want.method} ${want.path}: ${want.operationId} is gone`);
      continue;
    }
    const params = parametersOf(op);
    for (const p of want.parameters) {
      const got = params.find((x) => x.in === p.in && x.name === p.name);
      if (!got) errors.push(`${want.operationId}: parameter ${p.in} ${p.name} is gone`);
      else if (Boolean(got.required) !== p.required || (p.type && got.type !== p.type)) {
        errors.push(`${want.operationId}: parameter ${p.name} changed`);
      }
    }
    for (const status of want.responses) {
      if (!op.spec.responses[status]) {
        errors.push(`${want.operationId}: response ${status} is gone`);
      }
    }
  }
  for (const [name, want] of Object.entries<any>(convos.definitions)) {
    const got = openapi.definitions[name];
    if (!got) {
      errors.push(`definition ${name} is gone`);
      continue;
    }
    for (const r of want.required) {
      if (!(got.required ?? []).includes(r)) errors.push(`${name}.${r} is no longer required`);
    }
    for (const r of got.required ?? []) {
      if (!want.required.includes(r)) errors.push(`${name}.${r} became required`);
    }
    for (const [prop, type] of Object.entries(want.properties)) {
      const mine = got.properties?.[prop];
      if (!mine) errors.push(`${name}.${prop} is gone`);
      else if (type && docType(mine) !== type) errors.push(`${name}.${prop} changed its type`);
    }
  }
  assertEquals(errors, []);
});
