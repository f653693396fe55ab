// deno-lint-ignore-file no-explicit-any -- the document and the answers are JSON read by key
/**
 * Reading `routes/openapi.json` (Swagger 2.0, as Convos's) in tests: its operations, their
 * parameters with `$ref`s resolved, and a validator that checks an answer against an operation's
 * response schema. The validator is strict where the document is silent: an object schema that
 * lists `properties` and says nothing of `additionalProperties` is closed, so a field a route
 * returns and the document does not name is an error.
 */
import doc from "../../routes/openapi.json" with { type: "json" };

/** The document, as the app serves it under `GET /api`. */
export const openapi: any = doc;

/** A JSON schema of the document (Swagger 2.0's subset of draft 4). */
export type Schema = Record<string, any>;

/** One documented operation. */
export interface Operation {
  method: string;
  /** The path template below `basePath`, e.g. `/connection/{connection_id}`. */
  path: string;
  operationId: string;
  spec: any;
}

/** Every operation of the document. */
export function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(openapi.paths)) {
    for (const [method, spec] of Object.entries<any>(item)) {
      if (method === "parameters") continue;
      out.push({ method: method.toUpperCase(), path, operationId: spec.operationId, spec });
    }
  }
  return out;
}

/** Follows a local `$ref` (`#/definitions/User`, `#/parameters/before`). */
export function deref(node: any): any {
  let cur = node;
  while (cur && typeof cur === "object" && typeof cur.$ref === "string") {
    cur = cur.$ref.slice(2).split("/").reduce((o: any, k: string) => o?.[k], openapi);
    if (cur === undefined) throw new Error(`unresolved $ref ${node.$ref}`);
  }
  return cur;
}

/** An operation's parameters, resolved, those of its path item included. */
export function parametersOf(op: Operation): any[] {
  const shared = openapi.paths[op.path].parameters ?? [];
  return [...shared, ...(op.spec.parameters ?? [])].map(deref);
}

/** The operation that answers `method` on `url` (`/api/...`, `.json` allowed), with its params. */
export function match(
  method: string,
  url: string,
): { op: Operation; params: Record<string, string> } | undefined {
  let path = new URL(url, "http://x").pathname;
  if (!path.startsWith(openapi.basePath)) return undefined;
  path = path.slice(openapi.basePath.length).replace(/\.json$/, "");
  const parts = path.split("/");
  for (const op of operations()) {
    if (op.method !== method.toUpperCase()) continue;
    const tpl = op.path.split("/");
    if (tpl.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const same = tpl.every((t, i) => {
      const name = /^\{(\w+)\}$/.exec(t)?.[1];
      if (name) {
        params[name] = decodeURIComponent(parts[i]);
        return true;
      }
      return t === parts[i];
    });
    if (same) return { op, params };
  }
  return undefined;
}

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(want: string, v: unknown): boolean {
  const got = typeOf(v);
  return got === want || (want === "number" && got === "integer");
}

/**
 * The ways `value` breaks `schema`, each as `<json pointer>: <what>`; empty when it conforms.
 * `x-nullable: true` allows null.
 */
export function schemaErrors(schema: Schema, value: unknown, at = ""): string[] {
  const s = deref(schema);
  const where = at || "/";
  if (value === null && s["x-nullable"]) return [];
  const errors: string[] = [];
  if (s.type && !typeMatches(s.type, value)) {
    return [`${where}: expected ${s.type}, got ${typeOf(value)} ${JSON.stringify(value)}`];
  }
  if (s.enum && !s.enum.includes(value)) {
    errors.push(`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  }
  if (s.format === "date-time" && typeof value === "string" && !DATE_TIME.test(value)) {
    errors.push(`${where}: ${JSON.stringify(value)} is not a date-time`);
  }
  if (Array.isArray(value) && s.items) {
    value.forEach((v, i) => errors.push(...schemaErrors(s.items, v, `${at}/${i}`)));
  }
  if (typeOf(value) === "object") {
    const obj = value as Record<string, unknown>;
    const props: Record<string, Schema> = s.properties ?? {};
    for (const name of s.required ?? []) {
      if (!(name in obj)) errors.push(`${at}/${name}: required but missing`);
    }
    for (const [name, v] of Object.entries(obj)) {
      const key = `${at}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (props[name]) errors.push(...schemaErrors(props[name], v, key));
      else if (typeof s.additionalProperties === "object") {
        errors.push(...schemaErrors(s.additionalProperties, v, key));
      } else if (
        s.additionalProperties === false ||
        (s.additionalProperties === undefined && s.properties)
      ) errors.push(`${key}: not in the document`);
    }
  }
  return errors;
}

/**
 * The ways an answer breaks the document: an undocumented operation, a success status the
 * operation does not list, or a body that does not match the listed schema. Error answers
 * (4xx/5xx) are checked against the error body of docs/api.md.
 */
export function responseErrors(
  method: string,
  url: string,
  status: number,
  body: unknown,
): string[] {
  const found = match(method, url);
  if (!found) return [`${method} ${url}: no such operation in routes/openapi.json`];
  const { op } = found;
  const name = `${op.operationId} ${status}`;
  if (status >= 400) {
    return schemaErrors(ERROR_BODY, body).map((e) => `${name}: ${e}`);
  }
  const response = op.spec.responses[String(status)];
  if (!response) return [`${name}: status not documented`];
  if (!response.schema) return [];
  return schemaErrors(response.schema, body).map((e) => `${name}: ${e}`);
}

/** `{"errors":[{"message","path"}]}`, every error answer's body. */
const ERROR_BODY: Schema = {
  type: "object",
  required: ["errors"],
  properties: {
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["message", "path"],
        properties: { message: { type: "string" }, path: { type: "string" } },
      },
    },
  },
};
