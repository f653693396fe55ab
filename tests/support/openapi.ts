// deno-lint-ignore-file no-explicit-any -- the document and the answers are JSON read by key
/**
 * Reading the API document (Swagger 2.0, as Convos's; written from protocol/contract) in tests: its operations, their
 * parameters with `$ref`s resolved, and Ajv checking an answer against an operation's response
 * schema. The check is strict where the document is silent: an object schema that lists
 * `properties` and says nothing of `additionalProperties` is closed, so a field a route returns
 * and the document does not name is an error.
 */
import ajvDraft04 from "ajv-draft-04";
import ajvFormats from "ajv-formats";
import type { ErrorObject, ValidateFunction } from "ajv";
import { apiDocument } from "../../protocol/contract/mod.ts";

/** The document, as the app serves it under `GET /api`. */
export const openapi: any = apiDocument();

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

/**
 * The validator: Ajv with draft 4's semantics (those of Swagger 2.0's schemas) and its formats
 * (`date-time`, `email`, `uri`). `readOnly` is Swagger's annotation, as `description` is.
 */
// Both are CommonJS modules whose class and function are their `default` export.
const ajv = new ajvDraft04.default({ allErrors: true, strict: true, strictTypes: false });
ajvFormats.default(ajv);
ajv.addKeyword({ keyword: "readOnly", schemaType: "boolean" });

/** Where the document's definitions live for Ajv: `#/definitions/X` becomes `openapi.json#/...`. */
const DOC_ID = "openapi.json";

/**
 * A copy of `schema` for Ajv: local `$ref`s point into the registered document, and an object
 * schema that lists `properties` and says nothing of `additionalProperties` is closed (the document
 * is strict where it is silent: a field a route returns and the document does not name is an
 * error). `x-nullable: true` allows null.
 */
function forAjv(schema: any): any {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (!schema || typeof schema !== "object") return schema;
  const out: any = {};
  for (const [k, v] of Object.entries<any>(schema)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/")) out.$ref = DOC_ID + v;
    else if (k === "properties") {
      out.properties = Object.fromEntries(Object.entries<any>(v).map(([n, p]) => [n, forAjv(p)]));
    } else if (k !== "x-nullable") out[k] = forAjv(v);
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  if (schema["x-nullable"] === true) {
    if (out.type) out.type = [out.type, "null"].flat();
    if (out.enum) out.enum = [...out.enum, null];
  }
  return out;
}

ajv.addSchema({ definitions: forAjv(openapi.definitions) }, DOC_ID);

const compiled = new Map<Schema, ValidateFunction>();

/** `<json pointer>: <what>` for one Ajv error. */
function describe(e: ErrorObject): string {
  const at = e.instancePath || "/";
  if (e.keyword === "additionalProperties") {
    const name = String(e.params.additionalProperty).replaceAll("~", "~0").replaceAll("/", "~1");
    return `${e.instancePath}/${name}: not in the document`;
  }
  if (e.keyword === "required") return `${e.instancePath}/${e.params.missingProperty}: required`;
  if (e.keyword === "enum") {
    return `${at}: must be one of ${JSON.stringify(e.params.allowedValues)}`;
  }
  return `${at}: ${e.message}`;
}

/** The ways `value` breaks `schema` (of the document), each as `<json pointer>: <what>`. */
export function schemaErrors(schema: Schema, value: unknown): string[] {
  const validate = compiled.get(schema) ?? ajv.compile(forAjv(schema));
  compiled.set(schema, validate);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${describe(e)} (got ${show(valueAt(value, e))})`);
}

/** The value an error is about, for the message. */
function valueAt(value: unknown, e: ErrorObject): unknown {
  let cur: any = value;
  for (const raw of e.instancePath.split("/").slice(1)) {
    cur = cur?.[raw.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  if (e.keyword === "additionalProperties") return cur?.[e.params.additionalProperty];
  return cur;
}

function show(v: unknown): string {
  const s = v === undefined ? "nothing" : JSON.stringify(v);
  return s.length > 120 ? s.slice(0, 120) + "…" : s;
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
  if (!found) return [`${method} ${url}: no such operation in the API document`];
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
