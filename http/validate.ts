/** Request validation with zod; every failure becomes a 400 whose `path` points at the field. */
import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, type ErrorItem } from "./errors.ts";
import { JSON_BODY_LIMIT, readBody } from "./body.ts";
import type { AppEnv } from "./env.ts";

function pointer(root: string, path: readonly PropertyKey[]): string {
  return [root, ...path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1"))].join(
    "/",
  );
}

/** Validates `data` against `schema`; `root` is `/body`, `/query` or `/params`. */
export function validate<S extends z.ZodType>(schema: S, data: unknown, root: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const items: ErrorItem[] = result.error.issues.map((issue) => ({
    message: issue.message,
    path: pointer(root, issue.path),
  }));
  throw new ApiError(400, items[0].message, items[0].path, items.slice(1));
}

/**
 * Whether a Content-Type names JSON (`application/json`, with parameters or not).
 *
 * @internal test seam
 */
export function isJson(type: string | undefined): boolean {
  return (type ?? "").split(";")[0].trim().toLowerCase() === "application/json";
}

/**
 * Reads and validates the JSON body: one of another type is a 415 at `/header/content-type`,
 * malformed JSON a 400 at `/body`, a body over the operation's limit (`bodyLimit`, else
 * JSON_BODY_LIMIT) a 413 before it is read whole. With `required`, an empty body is a 400
 * "Missing property." at `/body`, as Convos answers.
 */
export async function jsonBody<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
  opts: { required?: boolean } = {},
): Promise<z.output<S>> {
  const bytes = await readBody(c, c.get("bodyLimit") ?? JSON_BODY_LIMIT);
  const text = new TextDecoder().decode(bytes);
  let data: unknown = {};
  // Convos's wording for an operation whose body is required but absent.
  if (opts.required && text.trim() === "") throw new ApiError(400, "Missing property.", "/body");
  if (text.trim() !== "") {
    // A form of another site can post text/plain that reads as JSON; a browser sends JSON as
    // such only from a page allowed to (same origin, or CORS, which Parley does not grant).
    if (!isJson(c.req.header("content-type"))) {
      throw new ApiError(
        415,
        "The body must be JSON sent as Content-Type: application/json.",
        "/header/content-type",
      );
    }
    try {
      data = JSON.parse(text);
    } catch {
      throw new ApiError(400, "The body is not valid JSON.", "/body");
    }
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new ApiError(400, "The body must be a JSON object.", "/body");
  }
  return validate(schema, data, "/body");
}

/** Validates the query string (each name's first value, as Hono's `c.req.query()` gives it). */
export function queryParams<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return validate(schema, c.req.query(), "/query");
}
