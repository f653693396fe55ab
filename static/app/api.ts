/**
 * The API client: `api(operationId, {params, query, body})`, typed by the server's contract
 * (protocol/contract; types only, so the bundle carries no zod). Where each operation lives is read
 * from the document the server serves (`GET /api`, once), as Convos's own client does, so the
 * contract stays the one place that says it. Error bodies become ApiFailure.
 */
import type { ApiErrorItem } from "./types.ts";
import { at } from "./base.ts";
import type {
  Answer,
  OperationId,
  PathParams,
  Query,
  RequestBody,
} from "../../protocol/contract/types.ts";

/**
 * The JSON body of an operation (by operationId), as the server's zod schema reads it; a type
 * only, so the bundle carries no zod.
 */
export type Body<Op extends OperationId> = RequestBody<Op>;

/** What a call of `Op` passes: path parameters, query (text on the wire) and body. */
type Args<Op extends OperationId> =
  & (PathParams<Op> extends undefined ? { params?: undefined } : { params: PathParams<Op> })
  & (Query<Op> extends undefined ? { query?: undefined }
    : { query?: { [K in keyof Query<Op>]?: string | number | boolean } })
  & (RequestBody<Op> extends undefined ? { body?: FormData }
    : { body?: RequestBody<Op> });

/** The JSON an operation answers with; `unknown` for one without a documented body. */
export type Reply<Op extends OperationId> = [Answer<Op>] extends [never] ? unknown : Answer<Op>;

/** An API call that failed; `errors` carry JSON-pointer paths such as `/body/password`. */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly errors: ApiErrorItem[]) {
    super(errors.map((e) => e.message).join(" "));
  }
}

/** Called when any request answers 401, so the app can return to the login screen. */
let onUnauthorized: () => void = () => {};

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

/** Where an operation lives: its method and its path template below the document's basePath. */
interface Place {
  method: string;
  path: string;
}

const unreachable = () =>
  new ApiFailure(0, [{ message: "The server cannot be reached.", path: "/" }]);
const failed = (status: number) =>
  new ApiFailure(status, [{ message: `Request failed (${status}).`, path: "/" }]);

let places: Promise<{ basePath: string; byId: Map<string, Place> }> | undefined;

/** The operations of the served document, by operationId (asked for once). */
function operationPlaces(): Promise<{ basePath: string; byId: Map<string, Place> }> {
  places ??= (async () => {
    const res = await fetch(at("/api"), { headers: { accept: "application/json" } });
    if (!res.ok) throw failed(res.status);
    const doc = await res.json() as {
      basePath: string;
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const byId = new Map<string, Place>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op?.operationId) byId.set(op.operationId, { method: method.toUpperCase(), path });
      }
    }
    return { basePath: doc.basePath, byId };
  })().catch((e) => {
    places = undefined; // asked again on the next call
    throw e instanceof ApiFailure ? e : unreachable();
  });
  return places;
}

/** Calls the operation `id`; a JSON body is sent for plain objects, FormData as is. */
export async function api<Op extends OperationId>(
  id: Op,
  ...[args]: Record<never, never> extends Args<Op> ? [Args<Op>?] : [Args<Op>]
): Promise<Reply<Op>> {
  const { basePath, byId } = await operationPlaces();
  const place = byId.get(id);
  if (!place) throw failed(501);
  const params = (args?.params ?? {}) as Record<string, string>;
  const path = place.path.replace(/\{(\w+)\}/g, (_, name) => seg(params[name] ?? ""));
  const q = query((args?.query ?? {}) as Record<string, string | number | boolean | undefined>);
  return await request(place.method, basePath + path + q, args?.body) as Reply<Op>;
}

/** Sends one request to `url`; a failure becomes ApiFailure. */
async function request(method: string, url: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = { method, headers: { accept: "application/json" } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    throw unreachable();
  }
  const text = await res.text();
  let data: unknown = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = {};
  }
  if (!res.ok) {
    if (res.status === 401 && !new URL(url, location.href).pathname.endsWith("/user/login")) {
      onUnauthorized();
    }
    const errors = (data as { errors?: ApiErrorItem[] }).errors;
    throw errors ? new ApiFailure(res.status, errors) : failed(res.status);
  }
  return data;
}

/** Encodes one path segment (conversation ids start with `#`). */
export const seg = (s: string) => encodeURIComponent(s);
