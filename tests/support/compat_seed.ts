/**
 * Seeds a Parley data folder the way Convos's tests seed their core before a request: users made
 * without registering (`$core->user(...)->set_password`, no role, no connection) and server
 * settings (`$core->settings->open_to_public(1)`). For a daemon it runs as its own process (so the
 * daemon sees ordinary rows); an in-process app is seeded through its own store (`applySeed`).
 *
 * Usage: deno run -A tests/support/compat_seed.ts HOME '{"users":[...],"settings":{...}}'
 * (PARLEY_DATABASE_URL set: the PostgreSQL database instead of the folder's SQLite).
 */
import { openStore, type Store } from "../../store/mod.ts";
import { hashPassword } from "../../lib/password.ts";

/** What to put into the data folder. */
export interface Seed {
  users?: { email: string; password?: string; roles?: string[] }[];
  settings?: Record<string, unknown>;
}

/** Writes `seed` through `store`: the daemon's folder before it starts, or an in-process app's. */
export async function applySeed(store: Store, seed: Seed): Promise<void> {
  const users = store.users;
  for (const u of seed.users ?? []) {
    const existing = await users.byEmail(u.email);
    if (existing) {
      // A role change only, unless a password is given (as `$user->role(give => ...)`).
      const hash = u.password ? await hashPassword(u.password) : undefined;
      await users.update(existing.id, { roles: u.roles ?? [], passwordHash: hash });
    } else {
      await users.create(u.email, await hashPassword(u.password ?? "s3cret"), u.roles ?? []);
    }
  }
  if (seed.settings) await store.settings.set(seed.settings as never);
}

if (import.meta.main) {
  const [home, json] = Deno.args;
  await Deno.mkdir(home, { recursive: true });
  const store = await openStore(home, Deno.env.get("PARLEY_DATABASE_URL") || undefined);
  try {
    await applySeed(store, JSON.parse(json) as Seed);
  } finally {
    await store.close();
  }
}
