/** Connection profiles, on either backend (store/profiles.ts has the interface). */
import type { Selectable } from "kysely";
import type { ProfileRecord, ProfileStore } from "../profiles.ts";
import type { TableDb } from "./db.ts";
import { type ConnectionProfilesTable, flag } from "./schema.ts";

function toRecord(r: Selectable<ConnectionProfilesTable>): ProfileRecord {
  return {
    id: r.id,
    url: r.url,
    isDefault: flag(r.is_default),
    isForced: flag(r.is_forced),
    maxBulkMessageSize: r.max_bulk_message_size,
    maxMessageLength: r.max_message_length,
    serviceAccounts: JSON.parse(r.service_accounts),
    skipQueue: flag(r.skip_queue),
    webircPassword: r.webirc_password,
  };
}

/** The ProfileStore over a backend's executor. */
export function profileStore(db: TableDb): ProfileStore {
  const { q } = db;
  return {
    list: async () =>
      (await db.all(q.selectFrom("connection_profiles").selectAll().orderBy("id"))).map(toRecord),
    async get(id) {
      const row = await db.first(
        q.selectFrom("connection_profiles").selectAll().where("id", "=", id),
      );
      return row && toRecord(row);
    },
    save: (p) =>
      db.transaction(async (tx) => {
        // One default: saving one as the default takes it from the others.
        if (p.isDefault) {
          await tx.run(
            q.updateTable("connection_profiles").set({ is_default: false }).where("id", "<>", p.id),
          );
        }
        const values = {
          url: p.url,
          is_default: p.isDefault,
          is_forced: p.isForced,
          max_bulk_message_size: p.maxBulkMessageSize,
          max_message_length: p.maxMessageLength,
          service_accounts: JSON.stringify(p.serviceAccounts),
          skip_queue: p.skipQueue ?? false,
          webirc_password: p.webircPassword,
        };
        const row = await tx.first(
          q.insertInto("connection_profiles").values({ id: p.id, ...values })
            .onConflict((c) => c.column("id").doUpdateSet(values)).returningAll(),
        );
        return toRecord(row!);
      }),
    remove: async (id) =>
      await db.run(q.deleteFrom("connection_profiles").where("id", "=", id)) > 0,
  };
}
