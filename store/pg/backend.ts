/** PostgreSQL as the registry (store/backends.ts) knows it, chosen by a postgres:// URL. */
import type { BackendEntry } from "../backends.ts";

export const postgres: BackendEntry = {
  name: "postgres",
  schemes: ["postgres", "postgresql"],
  // The `postgres` client loads only with it.
  load: async () => (await import("./mod.ts")).pgBackend,
  embedded: ["store/pg/migrations/"],
  offers: { clustered: true, copyFrom: false, copyTo: true },
  testServer: "postgres",
};
