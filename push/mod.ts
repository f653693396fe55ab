/** Push notifications and automatic away, started once per app from its dependencies. */
import type { Config } from "../config.ts";
import { AutoAway, type AwayDeps } from "./away.ts";
import { PushNotifier } from "./notify.ts";
import { loadVapidKeys, type VapidKeys } from "./vapid.ts";

/** The push services of one app. */
export interface Push {
  keys: VapidKeys;
  notifier: PushNotifier;
  away: AutoAway;
}

/** What push is started from (the app's dependencies have it); nothing of HTTP. */
interface PushDeps extends AwayDeps {
  config: Config;
}

const started = new WeakMap<PushDeps, Push>();

/** A VAPID subject push services accept: the contact setting, else the base URL. */
async function subject(deps: PushDeps): Promise<string> {
  const contact = (await deps.store.settings.current()).contact;
  if (/^mailto:[^\s@]+@[^\s@]+$/.test(contact) || /^https:\/\/\S+$/.test(contact)) return contact;
  const base = deps.config.baseUrl;
  return base.protocol === "https:" ? base.origin : "mailto:root@localhost";
}

/** Starts (once) and returns the push services of `deps`. */
export function pushFor(deps: PushDeps): Push {
  let p = started.get(deps);
  if (!p) {
    const keys = loadVapidKeys(deps.config.home);
    const notifier = new PushNotifier({
      store: deps.store,
      bus: deps.bus,
      keys,
      subject: () => subject(deps),
      // Push endpoints follow the link previews' address rule.
      allowPrivate: deps.config.embedAllowPrivate,
    });
    const away = new AutoAway(deps);
    notifier.start();
    away.start();
    started.set(deps, p = { keys, notifier, away });
  }
  return p;
}
