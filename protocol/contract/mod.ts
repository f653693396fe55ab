/**
 * The HTTP API, declared once: every operation with its path, parameters, body and answers as
 * zod schemas. The routes validate with them, `GET /api` serves the document written from them
 * (`swagger.ts`), the web client takes its request and answer types from them (`types.ts`), and
 * the contract tests check the app against them.
 */
import { z } from "zod";
import { SHARED } from "./parameters.ts";
import * as D from "./definitions.ts";
import { swaggerDocument } from "./swagger.ts";
import { USER } from "./operations/user.ts";
import { CONNECTIONS } from "./operations/connections.ts";
import { CONVERSATIONS } from "./operations/conversations.ts";
import { FILES } from "./operations/files.ts";
import { SERVER } from "./operations/server.ts";
import { IGNORES } from "./operations/ignores.ts";
import { CONVERSATION_PREFS } from "./operations/conversation_prefs.ts";
import { CLIENT_SETTINGS } from "./operations/client_settings.ts";

/** Every operation, by operationId. */
export const API = {
  ...USER,
  ...CONNECTIONS,
  ...CONVERSATIONS,
  ...FILES,
  ...SERVER,
  ...IGNORES,
  ...CONVERSATION_PREFS,
  ...CLIENT_SETTINGS,
};

/** An operationId. */
export type OperationId = keyof typeof API;

/** What the document says of itself. */
const HEAD = {
  info: {
    title: "Parley API",
    version: "8.7.0",
    description:
      "The HTTP/JSON API of Parley, a multiuser persistent IRC proxy. Compatible with the Convos API 8.07.",
    termsOfService:
      "SSL (HTTPS) is highly suggested, since login credentials and session cookies are transmitted over this API.",
  },
  basePath: "/api",
  schemes: ["https", "http"],
  consumes: ["application/json"],
  produces: ["application/json"],
};

let written: Record<string, unknown> | undefined;

/** The Swagger 2.0 document of the API (written once, on first use). */
export function apiDocument(): Record<string, unknown> {
  written ??= swaggerDocument(
    HEAD,
    API,
    SHARED,
    Object.values(D).filter((d) => d instanceof z.ZodType),
  );
  return written;
}

/** The operations that read a JSON body. */
type BodyOperation = {
  [K in OperationId]: (typeof API)[K] extends { body: z.ZodType } ? K : never;
}[OperationId];

type BodyOf<K extends BodyOperation> = (typeof API)[K] extends { body: infer B extends z.ZodType }
  ? B
  : never;

const bodies = new Map<string, z.ZodType>();

/**
 * The schema a route reads `id`'s body with: the declared body without its `readOnly`
 * properties, which belong to the answer (a client that sends back what it read has them
 * ignored, as any unknown property).
 */
export function bodyOf<K extends BodyOperation>(id: K): BodyOf<K> {
  let schema = bodies.get(id);
  if (!schema) {
    const body = (API[id] as { body: z.ZodType }).body;
    schema = body;
    if (body instanceof z.ZodObject) {
      const answerOnly = Object.keys(body.shape).filter((k) => metaOf(body.shape[k])?.readOnly);
      if (answerOnly.length) {
        const mask = Object.fromEntries(answerOnly.map((k) => [k, true]));
        schema = body.omit(mask as Record<string, never>);
      }
    }
    bodies.set(id, schema);
  }
  return schema as BodyOf<K>;
}

/** The meta of `schema`, or of the schema it makes optional. */
function metaOf(schema: z.ZodType): Record<string, unknown> | undefined {
  const own = z.globalRegistry.get(schema);
  if (own) return own;
  return schema instanceof z.ZodOptional ? metaOf(schema.unwrap() as z.ZodType) : undefined;
}
