/**
 * Wires the parts the app runs on: the bus, the IRC manager, the connection service and what
 * happens when a user is deleted. One place, so the daemon (cli/daemon.ts) and the in-process test
 * app (tests/support/app.ts) run the same wiring.
 */
import type { Config } from "./config.ts";
import type { Clock } from "./lib/clock.ts";
import type { AppDeps } from "./http/env.ts";
import { EventBus } from "./lib/bus.ts";
import { IrcManager } from "./irc/manager.ts";
import { ConnectionService } from "./irc/connection_service.ts";
import { filesUserDeleted } from "./routes/files.ts";
import type { Store } from "./store/mod.ts";
import type { ClusterIrc } from "./cluster/irc.ts";
import { LoginThrottle } from "./http/throttle.ts";
import { Revocations } from "./bouncer/credentials.ts";

/** The app's dependencies over an opened store; `ircClock` paces connects (a test's clock). */
export async function wireDeps(
  config: Config,
  store: Store,
  version: string,
  ircClock?: Clock,
): Promise<AppDeps> {
  const bus = new EventBus();
  const manager = new IrcManager({ config, store, bus, version, clock: ircClock });
  // On a store several daemons can share, every process is a node of a cluster (of one, or of
  // many): it runs the users it owns and forwards the rest (cluster/, built on PostgreSQL's store).
  const loginThrottle = new LoginThrottle();
  const revocations = new Revocations();
  // Loaded only then, so that a SQLite install never loads the PostgreSQL client.
  const irc = store.backend.clustered
    ? await clusterIrc(manager, store, bus, config.clusterScanMs, {
      secret: config.secret,
      loginThrottle,
      revocations,
    })
    : manager;
  const connections = new ConnectionService({ config, store, bus, irc });
  const deps: AppDeps = {
    config,
    store,
    bus,
    irc,
    connections,
    // The lines of the connections this node runs (the bouncer's relay takes them).
    lines: manager,
    ident: manager.ident,
    loginThrottle,
    revocations,
    // Loaded only then: most installs have no directory, and never load its client.
    directory: config.ldapUrl
      ? await (await import("./auth/ldap.ts")).DirectoryLogin.open({ config, store, connections })
      : undefined,
    userDeleted: [
      (uid) => irc.userDeleted(uid),
      // Their IRC clients too, those without a connection (managing networks) included.
      (uid) => revocations.revoke({ userId: uid, kind: "user" }),
    ],
  };
  deps.userDeleted!.push(filesUserDeleted(deps));
  return deps;
}

/** This node's IRC in a cluster, over the shared store (cluster/ is built on PostgreSQL's). */
async function clusterIrc(
  manager: IrcManager,
  store: Store,
  bus: EventBus,
  scanMs: number,
  shared: ConstructorParameters<typeof ClusterIrc>[4],
): Promise<ClusterIrc> {
  const [cluster, { pgStoreOf }] = await Promise.all([
    import("./cluster/irc.ts"),
    import("./store/pg/mod.ts"),
  ]);
  return new cluster.ClusterIrc(manager, pgStoreOf(store), bus, scanMs, shared);
}
