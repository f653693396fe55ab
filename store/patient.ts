/**
 * A view of the store for what must not be lost to a database that stops answering for a while
 * (PostgreSQL restarting), or a disk full for a while: every call that fails so waits until the
 * store's recovery says to try again and is made again, so the caller pauses instead of failing.
 * IRC's incoming lines are handled through it: each connection's lines wait in order behind the
 * one that met the outage, and the transport's backlog bound stops reading the socket if the wait
 * is long. Requests made through the API use the store itself and are refused at once (503).
 *
 * The messages' `append` is left as it is: the batched writer holds what the database does not
 * take, and it runs for every line of a burst.
 */
import { log } from "../lib/log.ts";
import type { Store } from "./mod.ts";

/** Groups whose methods are left unwrapped, by group and method name. */
const DIRECT: Partial<Record<keyof Store, ReadonlySet<string>>> = {
  messages: new Set(["append"]),
};

/** `store`, its table groups' methods waiting out a database that does not answer. */
export function patientStore(store: Store): Store {
  async function again<T>(first: unknown, call: () => Promise<T>, what: string): Promise<T> {
    let err = first;
    for (;;) {
      const recovery = store.recovery(err);
      if (!recovery) throw err;
      log.warn(`waiting for ${recovery.waitingFor}`, { call: what });
      if (!(await recovery.retry)) throw err;
      try {
        return await call();
      } catch (next) {
        err = next;
      }
    }
  }
  const groups: Record<string, unknown> = {};
  for (const [name, group] of Object.entries(store)) {
    if (!group || typeof group !== "object" || name === "backend") continue;
    const direct = DIRECT[name as keyof Store];
    // The original stays the prototype: its other fields (a group's `generation`) read through.
    const view = Object.create(group);
    for (const key of methodNames(group)) {
      if (direct?.has(key)) continue;
      const fn = (group as Record<string, (...args: unknown[]) => unknown>)[key];
      view[key] = (...args: unknown[]) => {
        const result = fn.apply(group, args);
        // A thenable too (a query a method returns as it is), not only a Promise.
        if (typeof (result as PromiseLike<unknown> | undefined)?.then !== "function") return result;
        return Promise.resolve(result).catch((err) =>
          again(err, () => fn.apply(group, args) as Promise<unknown>, `${name}.${key}`)
        );
      };
    }
    groups[name] = view;
  }
  return Object.assign(Object.create(store), groups) as Store;
}

/** The names of an object's methods, its own and its class's. */
function methodNames(o: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const key of Object.getOwnPropertyNames(p)) {
      if (key === "constructor") continue;
      const d = Object.getOwnPropertyDescriptor(p, key);
      if (d && typeof d.value === "function") names.add(key);
    }
  }
  return [...names];
}
