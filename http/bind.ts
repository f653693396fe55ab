/**
 * Binding a route to its operation: the method and path come from the contract
 * (protocol/contract/), so no route module writes a path of the API, and a path changed there
 * moves its route with it.
 */
import type { Hono } from "hono";
import type { H } from "hono/types";
import { API, type OperationId } from "../protocol/contract/mod.ts";
import type { AppEnv } from "./env.ts";

/**
 * A path parameter's pattern where Hono's (one or more characters but `/`) is not the contract's:
 * a conversation id is empty for the server conversation.
 */
const PATTERNS: Record<string, string> = { conversation_id: "[^/]*" };

/** Hono's form of a contract path as its handlers' types see it (the names, not the patterns). */
type HonoPath<P extends string> = P extends `${infer A}{${infer N}}${infer B}`
  ? `${A}:${N}${HonoPath<B>}`
  : P;

/** Hono's form of a contract path: `{name}` becomes `:name`, with its pattern when it has one. */
export function honoPath<P extends string>(path: P): HonoPath<P> {
  return path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => `:${name}${PATTERNS[name] ? `{${PATTERNS[name]}}` : ""}`,
  ) as HonoPath<P>;
}

/**
 * The paths an operation answers on: its own and its format variants (`/embed.html`).
 *
 * @internal test seam
 */
export function operationPaths(id: OperationId): string[] {
  const op = API[id];
  const path = honoPath(op.path);
  const formats = ("x-formats" in op ? op["x-formats"] : undefined) ?? [];
  // `.json` is every operation's (Convos's document says so) and is not a route of its own.
  return [path, ...formats.filter((f) => f !== "json").map((f) => `${path}.${f}`)];
}

/** The operation each bound handler serves (tests check every operation is bound once). */
const served = new WeakMap<object, OperationId>();

/**
 * Binds `handlers` (middleware, then the handler) to operation `id` on `app`, at the operation's
 * method and paths below the app's mount point (`/api`).
 */
export function bind<K extends OperationId>(
  app: Hono<AppEnv>,
  id: K,
  ...handlers: H<AppEnv, HonoPath<(typeof API)[K]["path"]>>[]
): void {
  const last = handlers[handlers.length - 1] as H<AppEnv>;
  // A handler of its own, so that two operations served by one function are told apart.
  const own: H<AppEnv> = (c, next) => last(c, next);
  served.set(own, id);
  app.on(API[id].method.toUpperCase(), operationPaths(id), ...handlers.slice(0, -1), own);
}

/**
 * The operation a route's handler was bound to, if it was.
 *
 * @internal test seam
 */
export function boundOperation(handler: object): OperationId | undefined {
  return served.get(handler);
}
