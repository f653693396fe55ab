/** SQLite as the registry (store/backends.ts) knows it: the default, in the data folder. */
import type { BackendEntry } from "../backends.ts";

export const sqlite: BackendEntry = {
  name: "sqlite",
  schemes: [],
  load: async () => (await import("./mod.ts")).sqliteBackend,
  embedded: [
    "store/sqlite/migrations/",
    // The search indexer's thread, which also checkpoints, and what it imports.
    "store/sqlite/search_worker.ts",
    "store/sqlite/search_file.ts",
    "store/sqlite/db.ts",
  ],
  offers: { clustered: false, copyFrom: true, copyTo: false },
};
