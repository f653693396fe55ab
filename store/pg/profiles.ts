/** Connection profiles in PostgreSQL (store/profiles.ts has the interface). */
import { type ProfileRow, type ProfileStore, toRecord } from "../profiles.ts";
import { pgString, type Sql } from "./db.ts";

/** The PostgreSQL implementation of ProfileStore. */
export function pgProfileStore(sql: Sql): ProfileStore {
  return {
    list: async () =>
      (await sql<ProfileRow[]>`SELECT * FROM connection_profiles ORDER BY id`).map(toRecord),
    async get(id) {
      const [row] = await sql<ProfileRow[]>`SELECT * FROM connection_profiles WHERE id = ${id}`;
      return row && toRecord(row);
    },
    save: (p) =>
      sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        if (p.isDefault) {
          await tx`UPDATE connection_profiles SET is_default = false WHERE id <> ${p.id}`;
        }
        const [row] = await tx<ProfileRow[]>`INSERT INTO connection_profiles
          (id, url, is_default, is_forced, max_bulk_message_size, max_message_length,
           service_accounts, skip_queue, webirc_password)
          VALUES (${pgString(p.id)}, ${pgString(p.url)}, ${p.isDefault}, ${p.isForced},
            ${p.maxBulkMessageSize}, ${p.maxMessageLength},
            ${pgString(JSON.stringify(p.serviceAccounts))}, ${p.skipQueue ?? false},
            ${pgString(p.webircPassword)})
          ON CONFLICT (id) DO UPDATE SET url = excluded.url, is_default = excluded.is_default,
            is_forced = excluded.is_forced,
            max_bulk_message_size = excluded.max_bulk_message_size,
            max_message_length = excluded.max_message_length,
            service_accounts = excluded.service_accounts, skip_queue = excluded.skip_queue,
            webirc_password = excluded.webirc_password
          RETURNING *`;
        return toRecord(row);
      }) as ReturnType<ProfileStore["save"]>,
    remove: async (id) => (await sql`DELETE FROM connection_profiles WHERE id = ${id}`).count > 0,
  };
}
