/**
 * What the daemon checks of its store before it runs anyone: the schema is one this binary knows
 * (the migrations refuse a newer one) and, on a database nodes share, that this node's secret is
 * the installation's. A failed check is a ConfigError: one line, exit code 2.
 */
import { type Config, ConfigError } from "../config.ts";
import { openStore, type Store } from "../store/mod.ts";

/** Opens (and migrates) the store, then refuses a secret other than the installation's. */
export async function openCheckedStore(config: Config): Promise<Store> {
  const store = await openStore(config.home, config.databaseUrl);
  try {
    await checkSecret(store, config.secret);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/**
 * On PostgreSQL, the first node's secret is the installation's (its fingerprint is stored). On
 * SQLite one node owns the database and its secret may be changed (open invites are then void).
 */
async function checkSecret(store: Store, secret: string): Promise<void> {
  if (!store.backend.clustered) return;
  const { pgStoreOf } = await import("../store/pg/mod.ts");
  const { claimSecret } = await import("../store/pg/secret_fingerprint.ts");
  if (!await claimSecret(pgStoreOf(store).sql, secret)) {
    throw new ConfigError(
      "PARLEY_SECRET is not the secret of this database's other nodes (the database keeps a " +
        "fingerprint of it): give every node the same PARLEY_SECRET",
    );
  }
}
