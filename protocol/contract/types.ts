/**
 * The request and answer types of each operation, taken from the contract's schemas. The web
 * client imports these with `import type`, so a field renamed or retyped in the contract is a type
 * error there, and no zod reaches its bundle.
 */
import type { z } from "zod";
import type { API, OperationId } from "./mod.ts";

export type { OperationId };

type Spec<K extends OperationId> = (typeof API)[K];

/** What a client sends as `part` (`body`, `query`, `params`), or `undefined` when none. */
type Sent<K extends OperationId, Part extends string> = Spec<K> extends
  { [P in Part]: infer S extends z.ZodType } ? z.input<S> : undefined;

/** The JSON body the operation reads. */
export type RequestBody<K extends OperationId> = Sent<K, "body">;

/** The path parameters, by name. */
export type PathParams<K extends OperationId> = Sent<K, "params">;

/** The query the operation reads, by name (values are text on the wire). */
export type Query<K extends OperationId> = Sent<K, "query">;

/** The JSON of the operation's success answer (its first status with a schema). */
export type Answer<K extends OperationId> = {
  [S in keyof Spec<K>["responses"]]: Spec<K>["responses"][S] extends
    { schema: infer T extends z.ZodType } ? z.input<T> : never;
}[keyof Spec<K>["responses"]];
