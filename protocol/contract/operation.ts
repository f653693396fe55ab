/**
 * What one API operation declares: where it is, what it reads (path parameters, query, form,
 * JSON body) and what it answers, each as a zod schema. The routes validate with these schemas,
 * `swagger.ts` writes the document from them, and the web client takes its types from them.
 */
import type { z } from "zod";

/** One documented answer. */
interface ResponseSpec {
  description: string;
  /** The answer's JSON; absent for answers that are not JSON (a file, a redirect). */
  schema?: z.ZodType;
}

/** One operation of the API. */
export interface OperationSpec {
  method: "get" | "post" | "delete";
  /** The path below `/api`, with `{name}` for path parameters. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  consumes?: string[];
  produces?: string[];
  /** Variants of the path besides `.json` (`/embed.html`). */
  "x-formats"?: string[];
  /** Path parameters, one property per `{name}` of the path. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Form fields of a multipart upload. */
  form?: z.ZodObject;
  /** The JSON body; its own `description` (meta) documents the body as a whole. */
  body?: z.ZodType;
  responses: Record<number, ResponseSpec>;
}

/** Keeps each operation's literal type while checking it against OperationSpec. */
export function operations<const T extends Record<string, OperationSpec>>(table: T): T {
  return table;
}
