// deno-lint-ignore-file no-explicit-any -- Swagger documents are JSON read by key
/**
 * What a client relies on in a Swagger 2.0 document, as facts: each operation's id, its
 * parameters, its body's and answers' properties, each definition's properties, with their types,
 * formats, enums and required-ness (descriptions and limits left out). Two documents are then
 * compared fact by fact; tests/fixtures/convos/api-8.07-surface.json holds Convos 8.07's facts.
 */

/** Fact key (`GET /user query connections`) to what it says (`boolean`). */
export type Surface = Record<string, string>;

/** One schema's facts under `key`: its type, and those of its properties and items. */
function schemaFacts(out: Surface, key: string, schema: any, required = false) {
  if (!schema || typeof schema !== "object") return;
  const parts: string[] = [];
  if (typeof schema.$ref === "string") parts.push(`-> ${schema.$ref.split("/").pop()}`);
  else {
    const type = schema.type ?? (schema.items ? "array" : schema.properties ? "object" : "any");
    parts.push(type);
  }
  if (required) parts.push("required");
  if (schema.format) parts.push(`format ${schema.format}`);
  if (schema.enum) parts.push(`enum ${[...schema.enum].sort().join("|")}`);
  out[key] = parts.join(", ");
  if (schema.$ref) return;
  const need = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
    schemaFacts(out, `${key} .${name}`, prop, need.has(name));
  }
  if (schema.items) schemaFacts(out, `${key} []`, schema.items);
}

/** The facts of `doc`. */
export function surface(doc: any): Surface {
  const out: Surface = {};
  const param = (p: any) => p.$ref ? doc.parameters[p.$ref.split("/").pop()] : p;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!["get", "post", "put", "delete", "patch"].includes(method)) continue;
      const at = `${method.toUpperCase()} ${path}`;
      out[at] = op.operationId;
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = param(raw);
        if (p.in === "body") schemaFacts(out, `${at} body`, p.schema, p.required === true);
        else schemaFacts(out, `${at} ${p.in} ${p.name}`, p, p.required === true);
      }
      for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
        if (status === "default") continue;
        out[`${at} ${status}`] = r.schema ? "" : "no body";
        if (r.schema) schemaFacts(out, `${at} ${status}`, r.schema);
      }
    }
  }
  for (const [name, def] of Object.entries<any>(doc.definitions ?? {})) {
    schemaFacts(out, `definition ${name}`, def);
  }
  return out;
}

/**
 * How `mine` differs from `theirs`: `+ key: value` (only mine), `- key: value` (only theirs),
 * `~ key: theirs -> mine`. Under a key only one side has, the keys below it are not listed again.
 */
export function surfaceDiff(theirs: Surface, mine: Surface): string[] {
  const out: string[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  const under = (key: string, roots: string[]) => roots.some((r) => key.startsWith(r + " "));
  for (const key of [...new Set([...Object.keys(theirs), ...Object.keys(mine)])].sort()) {
    if (!(key in theirs)) {
      if (!under(key, added)) out.push(`+ ${key}: ${mine[key]}`);
      added.push(key);
    } else if (!(key in mine)) {
      if (!under(key, removed)) out.push(`- ${key}: ${theirs[key]}`);
      removed.push(key);
    } else if (theirs[key] !== mine[key]) out.push(`~ ${key}: ${theirs[key]} -> ${mine[key]}`);
  }
  return out;
}
