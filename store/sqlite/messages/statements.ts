import type { DatabaseSync, StatementSync } from "node:sqlite";

/** Prepares statements whose SQL depends on a query's shape once, cached by their text. */
export function statementCache(): (sql: string, on: DatabaseSync) => StatementSync {
  const cache = new Map<string, StatementSync>();
  return (sql, on) => {
    let st = cache.get(sql);
    if (!st) cache.set(sql, st = on.prepare(sql));
    return st;
  };
}
