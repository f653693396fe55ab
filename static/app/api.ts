/** A small fetch wrapper for the JSON API that turns error bodies into ApiFailure. */
import type { ApiErrorItem } from "./types.ts";
import type { OperationId, RequestBody } from "../../http/contract/types.ts";

/**
 * The JSON body of an operation (by operationId), as the server's zod schema reads it; a type
 * only, so the bundle carries no zod.
 */
export type Body<Op extends OperationId> = RequestBody<Op>;

/** An API call that failed; `errors` carry JSON-pointer paths such as `/body/password`. */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly errors: ApiErrorItem[]) {
    super(errors.map((e) => e.message).join(" "));
  }
}

/** Called when any request answers 401, so the app can return to the login screen. */
export let onUnauthorized: () => void = () => {};

/** Sets the 401 handler. */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

/** Builds a query string from defined values only. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? "?" + s : "";
}

/** Calls `/api{path}`; a JSON body is sent for plain objects, FormData as is. */
export async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const init: RequestInit = { method, headers: { accept: "application/json" } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch("/api" + path, init);
  } catch {
    throw new ApiFailure(0, [{ message: "The server cannot be reached.", path: "/" }]);
  }
  const text = await res.text();
  let data: unknown = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = {};
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith("/user/login")) onUnauthorized();
    const errors = (data as { errors?: ApiErrorItem[] }).errors ??
      [{ message: `Request failed (${res.status}).`, path: "/" }];
    throw new ApiFailure(res.status, errors);
  }
  return data as T;
}

/** Encodes one path segment (conversation ids start with `#`). */
export const seg = (s: string) => encodeURIComponent(s);
