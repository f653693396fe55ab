/**
 * The writer of the API document (protocol/contract/swagger.ts) on a small table: each rule that
 * turns zod's JSON Schema into Swagger 2.0's dialect, as Convos's client reads it.
 */
import { z } from "zod";
import { assertEquals } from "../../../support/assert.ts";
import { swaggerDocument } from "../../../../protocol/contract/swagger.ts";
import { operations } from "../../../../protocol/contract/operation.ts";

const Thing = z.object({
  name: z.string().max(10).meta({ description: "A name" }),
  note: z.string().nullable().optional(),
  kind: z.union([z.literal(""), z.string().trim()]).optional(),
  made: z.string().meta({ readOnly: true }).optional(),
}).meta({ id: "WriterThing" });
const thingId = z.string().meta({ description: "A thing", parameter: "thing_id" });

const table = operations({
  getThing: {
    method: "get",
    path: "/thing/{thing_id}",
    summary: "One thing.",
    params: z.object({ thing_id: thingId }),
    query: z.object({
      limit: z.string().regex(/^\d+$/).optional().meta({ type: "integer" }),
      full: z.enum(["true", "false"]).meta({ type: "boolean" }),
    }),
    responses: { 200: { description: "The thing.", schema: Thing } },
  },
  putThing: {
    method: "post",
    path: "/thing",
    summary: "Save a thing.",
    body: Thing,
    form: z.object({ file: z.file() }),
    responses: {
      200: { description: "Saved.", schema: z.looseObject({ id: z.number().int() }) },
      302: { description: "Elsewhere." },
    },
  },
});

Deno.test("the writer speaks Swagger 2.0: definitions, shared parameters, x-nullable, plain types", () => {
  const head = {
    info: { title: "t", version: "1" },
    basePath: "/api",
    schemes: ["http"],
    consumes: ["application/json"],
    produces: ["application/json"],
  };
  const shared = { thing_id: { in: "path" as const, name: "thing_id", schema: thingId } };
  const doc = swaggerDocument(head, table, shared, [Thing]);
  assertEquals(doc.swagger, "2.0");
  assertEquals(doc.parameters, {
    thing_id: {
      name: "thing_id",
      in: "path",
      type: "string",
      description: "A thing",
      required: true,
    },
  });
  assertEquals(doc.definitions.WriterThing, {
    type: "object",
    properties: {
      name: { type: "string", maxLength: 10, description: "A name" },
      note: { type: "string", "x-nullable": true },
      kind: { type: "string" },
      made: { type: "string", readOnly: true },
    },
    required: ["name"],
  });
  const get = doc.paths["/thing/{thing_id}"].get;
  assertEquals(get.parameters, [
    { $ref: "#/parameters/thing_id" },
    { name: "limit", in: "query", type: "integer" },
    { name: "full", in: "query", type: "boolean", required: true },
  ]);
  assertEquals(get.responses, {
    200: { description: "The thing.", schema: { $ref: "#/definitions/WriterThing" } },
  });
  const post = doc.paths["/thing"].post;
  assertEquals(post.parameters, [
    { name: "file", in: "formData", type: "file", required: true },
    { in: "body", name: "body", required: true, schema: { $ref: "#/definitions/WriterThing" } },
  ]);
  assertEquals(post.responses, {
    200: {
      description: "Saved.",
      schema: {
        type: "object",
        properties: { id: { type: "integer" } },
        required: ["id"],
        additionalProperties: true,
      },
    },
    302: { description: "Elsewhere." },
  });
});
