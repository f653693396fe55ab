/**
 * BouncerServ's tests run its commands as a client's line would: through runService, over a real
 * store and the connection service (with a fake IRC side), as a user read from the store.
 */
import "../../../../bouncer/service/mod.ts"; // its groups' modules fill the table
import { runService, type ServiceDeps } from "../../../../bouncer/service/table.ts";
import { type Revocation, Revocations } from "../../../../bouncer/credentials.ts";
import type { Store } from "../../../../store/mod.ts";
import type { UserRecord } from "../../../../store/users.ts";
import { connectionService } from "../fakes.ts";

/** The service over `store`; `as(user)` runs lines as that user (read from the store again). */
export function service(store: Store) {
  const { connections, bus, fake } = connectionService(store);
  const revocations = new Revocations();
  const revoked: Revocation[] = [];
  revocations.listen((r) => revoked.push(r));
  const deleted: number[] = [];
  const deps: ServiceDeps = {
    store,
    connections,
    bus,
    revocations,
    irc: fake.irc,
    // As the daemon wires them (deps.ts): the IRC clients' logins end with the account.
    userDeleted: [
      (id) => Promise.resolve(void deleted.push(id)),
      (id) => revocations.revoke({ userId: id, kind: "user" }),
    ],
  };
  /** Lines as `user` would send them; `passwordGiven` false: logged in by a token or certificate. */
  const as =
    (user: UserRecord, network = "", certificate?: string, passwordGiven = true) =>
    async (line: string) => {
      const now = (await store.users.byId(user.id))!;
      return runService({ deps, user: now, network, certificate, passwordGiven }, line);
    };
  return { deps, connections, bus, fake, revoked, deleted, as };
}
