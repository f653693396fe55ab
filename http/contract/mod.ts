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

/** Every operation, by operationId. */
export const API = { ...USER, ...CONNECTIONS, ...CONVERSATIONS, ...FILES, ...SERVER };

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
