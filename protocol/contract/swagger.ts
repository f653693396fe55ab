// deno-lint-ignore-file no-explicit-any -- the document is JSON built key by key
/**
 * Writes the Swagger 2.0 document that `GET /api` serves from the operation table. Convos's own
 * client reads Swagger 2.0 (`definitions`, `parameters`, `in: body`), so zod's JSON Schema is
 * turned into that dialect here: a schema with an `id` becomes `#/definitions/<id>`, a path or
 * query schema marked `parameter` becomes `#/parameters/<name>`, `nullable` becomes `x-nullable`,
 * and a union (which Swagger 2.0 cannot say) is documented as its plainest member.
 */
import { z } from "zod";
import type { OperationSpec } from "./operation.ts";

/** A parameter shared by several operations (`#/parameters/<key>`). */
export interface SharedParameter {
  in: "path" | "query";
  name: string;
  schema: z.ZodType;
}

/** What the document says besides its operations. */
interface DocumentHead {
  info: Record<string, string>;
  basePath: string;
  schemes: string[];
  consumes: string[];
  produces: string[];
}

type Json = Record<string, any>;

/** zod's JSON Schema of what a client sends (the input side of transforms and defaults). */
function jsonSchema(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, {
    target: "openapi-3.0",
    io: "input",
    unrepresentable: "any",
  }) as Json;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** One schema node in Swagger 2.0's dialect; `definitions` collects the named ones. */
function swaggerSchema(node: any): any {
  if (Array.isArray(node)) return node.map(swaggerSchema);
  if (!node || typeof node !== "object") return node;
  let n: Json = { ...node };
  delete n.$schema;
  delete n.id;
  if (Array.isArray(n.anyOf)) {
    // The member a client would send: a plain type rather than a literal (`""`) or a null.
    const members = n.anyOf.filter((m: Json) => m.type !== "null");
    const plain = members.find((m: Json) => m.enum === undefined && m.const === undefined) ??
      members[0];
    delete n.anyOf;
    n = { ...plain, ...n };
  }
  if (n.nullable === true) {
    delete n.nullable;
    n["x-nullable"] = true;
  }
  if (n.type === "integer" || n.type === "number") {
    // zod bounds every integer by the safe range, which says nothing to a client.
    if (n.minimum === -SAFE) delete n.minimum;
    if (n.maximum === SAFE) delete n.maximum;
  }
  if (n.type === "object") {
    delete n.propertyNames;
    const open = n.additionalProperties;
    if (open && typeof open === "object" && Object.keys(open).length === 0) {
      // An object that takes anything: said by `additionalProperties: true` next to its listed
      // properties, or by listing none.
      if (n.properties) n.additionalProperties = true;
      else delete n.additionalProperties;
    }
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(n)) {
    if (k === "properties") {
      out.properties = Object.fromEntries(
        Object.entries<any>(v).map(([name, p]) => [name, swaggerSchema(p)]),
      );
    } else if (k === "parameter" || k === "definitions" || k === "$defs") continue;
    else out[k] = swaggerSchema(v);
  }
  if (Array.isArray(out.allOf) && out.allOf.length === 1 && out.allOf[0].$ref) {
    // zod wraps a named schema made optional; the property is the named schema.
    return { ...out.allOf[0] };
  }
  if (typeof out.$ref === "string") return { $ref: out.$ref };
  return out;
}

/** The Swagger 2.0 document of `table`. */
export function swaggerDocument(
  head: DocumentHead,
  table: Record<string, OperationSpec>,
  shared: Record<string, SharedParameter>,
  definitions: z.ZodType[],
): Json {
  const defs: Json = {};
  const collect = (schema: Json) => {
    for (const [name, def] of Object.entries<any>(schema.definitions ?? {})) {
      defs[name] = swaggerSchema(def);
    }
  };
  for (const def of definitions) collect(jsonSchema(z.object({ def })));

  const parameters: Json = {};
  for (const [key, p] of Object.entries(shared)) {
    parameters[key] = parameter(p.name, p.in, jsonSchema(p.schema), p.in === "path");
  }
  const sharedKey = (s: Json) => (typeof s.parameter === "string" ? s.parameter : undefined);

  const paths: Json = {};
  for (const [operationId, op] of Object.entries(table)) {
    const params: Json[] = [];
    const fromObject = (where: "path" | "query" | "formData", schema?: z.ZodObject) => {
      if (!schema) return;
      const js = jsonSchema(schema);
      collect(js);
      const required = new Set<string>(js.required ?? []);
      for (const [name, prop] of Object.entries<any>(js.properties ?? {})) {
        const key = sharedKey(prop);
        if (key) {
          if (!shared[key]) throw new Error(`${operationId}: unknown shared parameter ${key}`);
          params.push({ $ref: `#/parameters/${key}` });
        } else {
          params.push(parameter(name, where, prop, where === "path" || required.has(name)));
        }
      }
    };
    fromObject("path", op.params);
    fromObject("query", op.query);
    fromObject("formData", op.form);
    if (op.body) {
      const js = jsonSchema(op.body);
      collect(js);
      const { description, ...schema } = swaggerSchema(js);
      params.push({
        ...(description && !schema.$ref ? { description } : {}),
        in: "body",
        name: "body",
        required: true,
        schema: description && schema.$ref ? { $ref: schema.$ref } : schema,
      });
    }
    const responses: Json = {};
    for (const [status, r] of Object.entries(op.responses)) {
      const out: Json = { description: r.description };
      if (r.schema) {
        const js = jsonSchema(r.schema);
        collect(js);
        out.schema = swaggerSchema(js);
      }
      responses[status] = out;
    }
    const spec: Json = { operationId, summary: op.summary };
    for (const k of ["description", "tags", "consumes", "produces", "x-formats"] as const) {
      if (op[k] !== undefined) spec[k] = op[k];
    }
    if (params.length) spec.parameters = params;
    spec.responses = responses;
    (paths[op.path] ??= {})[op.method] = spec;
  }
  return { swagger: "2.0", ...head, paths, parameters, definitions: defs };
}

/** A non-body parameter: its schema's keywords beside `name`, `in` and `required`. */
function parameter(name: string, where: string, prop: Json, required: boolean): Json {
  const schema = swaggerSchema(prop);
  if (schema.format === "binary" && schema.contentEncoding === "binary") {
    // A file field (z.file()): Swagger 2.0's own type for it.
    delete schema.format;
    delete schema.contentEncoding;
    schema.type = "file";
  }
  if (schema.type !== "string") {
    // A query value is text on the wire; its schema's `type` (meta) says what it means, so the
    // keywords of its text form say nothing more.
    for (const k of ["pattern", "minLength", "maxLength"]) delete schema[k];
    if (schema.enum?.every((v: unknown) => typeof v === "string")) delete schema.enum;
  }
  const out: Json = { name, in: where, ...schema };
  if (required) out.required = true;
  return out;
}
