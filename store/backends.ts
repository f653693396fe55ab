/**
 * Every backend Parley has, one line each: its descriptor (`<folder>/backend.ts`) says what the
 * rest of Parley needs to know of it without loading it. `openStore` chooses one by the database
 * URL's scheme, `config.ts` accepts those schemes, `scripts/compile.ts` embeds the files each
 * reads at run time, the store's tests run on every one (tests/support/backends.ts) and the test
 * runner gives each but the default a pass of the route and compatibility tests (scripts/test.ts).
 */
import type { StoreBackend } from "./mod.ts";
import { sqlite } from "./sqlite/backend.ts";
import { postgres } from "./pg/backend.ts";

/** What is known of a backend before it is loaded. */
export interface BackendEntry {
  /** Its name, as its `StoreBackend` says it. */
  readonly name: string;
  /**
   * The `PARLEY_DATABASE_URL` schemes that choose it; none for the one used when no URL is given
   * (SQLite in the data folder).
   */
  readonly schemes: readonly string[];
  /** Loads it (and its database client) only when chosen. */
  load(): Promise<StoreBackend>;
  /**
   * Files and folders it reads at run time that the single binary must embed, relative to the
   * repository: its migrations, and the worker modules it loads by URL with what they import.
   */
  readonly embedded: readonly string[];
  /** What it offers beyond the contract; its `StoreBackend` must agree (a store test checks). */
  readonly offers: { clustered: boolean; copyFrom: boolean; copyTo: boolean };
  /**
   * The server its tests need a database of (tests/support/test_backend.ts starts it, for the
   * store's tests and for the test runner's pass of this backend); without one, each test opens it
   * in a fresh data folder.
   */
  readonly testServer?: "postgres";
}

/** Every backend, the default (no URL) first. */
export const BACKENDS: readonly BackendEntry[] = [sqlite, postgres];
