/**
 * Seeds a Parley data folder the way Convos's tests seed their core before a request: users made
 * without registering (`$core->user(...)->set_password`, no role, no connection) and server
 * settings (`$core->settings->open_to_public(1)`). Run as its own process (tests/support/compat.ts
 * does), so the test process opens no database and the daemon sees ordinary rows.
 *
 * Usage: deno run -A tests/support/compat_seed.ts HOME '{"users":[...],"settings":{...}}'
 * (PARLEY_DATABASE_URL set: the PostgreSQL database instead of the folder's SQLite).
 */
import { openStore } from "../../store/mod.ts";
import { hashPassword } from "../../lib/password.ts";

/** What to put into the data folder. */
export interface Seed {
  users?: { email: string; password?: string; roles?: string[] }[];
  settings?: Record<string, unknown>;
}

if (import.meta.main) {
  const [home, json] = Deno.args;
  const seed = JSON.parse(json) as Seed;
  await Deno.mkdir(home, { recursive: true });
  const store = await openStore(home, Deno.env.get("PARLEY_DATABASE_URL") || undefined);
  try {
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
  } finally {
    await store.close();
  }
}
