// deno-lint-ignore-file no-explicit-any -- the documents are JSON read by key
/**
 * The document written from the operation table against the hand-kept routes/openapi.json it
 * replaces: the same, key for key (order aside), except what the validators enforce and the old
 * document left unsaid (lengths, patterns, item counts, enums) and `type: "array"` next to `items`.
 */
import { assertEquals } from "../support/assert.ts";
import { apiDocument } from "../../http/contract/mod.ts";
import old from "../../routes/openapi.json" with { type: "json" };

/** Keywords a validator adds to a schema that the old document did not write down. */
const CONSTRAINTS = new Set(["minLength", "maxLength", "pattern", "maxItems", "minItems", "enum"]);

/** The differences between `a` (old) and `b` (generated), each as `<pointer>: <what>`. */
function differences(a: any, b: any, at = ""): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (Array.isArray(a) && Array.isArray(b)) {
    if (at.endsWith("/parameters")) {
      // Parameters are a set: compare them by what they name.
      const key = (p: any) => p.$ref ?? `${p.in} ${p.name}`;
      const byKey = (list: any[]) => new Map(list.map((p) => [key(p), p]));
      const [ka, kb] = [byKey(a), byKey(b)];
      return [...new Set([...ka.keys(), ...kb.keys()])]
        .flatMap((k) => differences(ka.get(k), kb.get(k), `${at}[${k}]`));
    }
    if (at.endsWith("/required")) {
      return differences([...a].sort(), [...b].sort(), at + "(sorted)").length
        ? [`${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`]
        : [];
    }
  }
  const isObject = (x: any) => x && typeof x === "object" && !Array.isArray(x);
  if (!isObject(a) || !isObject(b)) {
    return [`${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`];
  }
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const added = !(k in a) && k in b;
    if (added && CONSTRAINTS.has(k)) continue;
    if (added && k === "type" && b.type === "array" && "items" in a) continue;
    out.push(...differences(a[k], b[k], `${at}/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`));
  }
  return out;
}

Deno.test("the generated document is the hand-kept one, plus the limits the validators enforce", () => {
  assertEquals(differences(old, apiDocument()), []);
});

Deno.test("the comparison sees a changed, a missing and an added keyword", () => {
  const doc: any = structuredClone(apiDocument());
  doc.definitions.User.properties.email.type = "integer";
  delete doc.definitions.User.required;
  doc.paths["/user"].get.summary = "changed";
  doc.paths["/user"].get.parameters.push({ in: "query", name: "extra", type: "string" });
  doc.definitions.Success.properties.message.format = "email";
  assertEquals(differences(old, doc).sort(), [
    '/definitions/Success/properties/message/format: undefined became "email"',
    '/definitions/User/properties/email/type: "string" became "integer"',
    '/definitions/User/required: ["email","unread"] became undefined',
    '/paths/~1user/get/parameters[query extra]: undefined became {"in":"query","name":"extra","type":"string"}',
    '/paths/~1user/get/summary: "Get user data." became "changed"',
  ]);
});
