/**
 * Routes bind their method and path from the contract (http/bind.ts): every operation is bound
 * exactly once, at its method and paths, and nothing under /api is routed outside the contract.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { API, type OperationId } from "../../protocol/contract/mod.ts";
import { boundOperation, operationPaths } from "../../http/bind.ts";

Deno.test("every operation of the contract is bound once, and /api routes nothing else", async () => {
  const a = await startApp();
  try {
    /** Each operation's bound handlers, and the routes they answer. */
    const handlers = new Map<OperationId, Set<unknown>>();
    const routes = new Map<OperationId, Set<string>>();
    const operationRoutes = new Set<string>();
    for (const r of a.app.routes) {
      const id = boundOperation(r.handler);
      if (!id) continue;
      handlers.set(id, (handlers.get(id) ?? new Set()).add(r.handler));
      routes.set(id, (routes.get(id) ?? new Set()).add(`${r.method} ${r.path}`));
      operationRoutes.add(`${r.method} ${r.path}`);
    }
    const ids = Object.keys(API) as OperationId[];
    assertEquals(
      ids.filter((id) => handlers.get(id)?.size !== 1).map((
        id,
      ) => [id, handlers.get(id)?.size ?? 0]),
      [],
      "operations not bound exactly once",
    );
    for (const id of ids) {
      const expected = operationPaths(id).map((p) => `${API[id].method.toUpperCase()} /api${p}`);
      assertEquals([...routes.get(id)!].sort(), expected.sort(), id);
    }
    // Middleware mounted on a bound route shares its method and path; anything else under /api
    // (but the document at `GET /api` itself) is a route the contract does not declare.
    const outside = a.app.routes
      .filter((r) => r.method !== "ALL" && r.path.startsWith("/api/"))
      .map((r) => `${r.method} ${r.path}`)
      .filter((route) => !operationRoutes.has(route));
    assertEquals([...new Set(outside)], [], "routes under /api outside the contract");
  } finally {
    await a.close();
  }
});
