/**
 * Screens that most visits never open (account, admin, connection and conversation settings,
 * files) are separate chunks of the bundle, fetched the first time they are shown, so the page
 * loads less script.
 */
import type { ComponentType } from "preact";
import { signal } from "@preact/signals";
import { t } from "./i18n.ts";

/** Bumped when a chunk arrives, so whatever showed the placeholder renders again. */
const loaded = signal(0);

/** A component that renders `name` from the module `load` brings, once it has arrived. */
export function lazy<P extends object>(
  load: () => Promise<Record<string, unknown>>,
  name: string,
): ComponentType<P> {
  let Found: ComponentType<P> | undefined;
  let failed = false;
  let pending: Promise<void> | undefined;
  return (props: P) => {
    loaded.value; // subscribe: the chunk's arrival renders this again
    if (Found) return <Found {...props} />;
    pending ??= load().then(
      (m) => void (Found = m[name] as ComponentType<P>),
      () => {
        failed = true;
        pending = undefined;
      },
    ).finally(() => loaded.value++);
    return failed
      ? <p class="empty" role="alert">{t("Could not load this page. Reload to try again.")}</p>
      : <div class="splash" aria-busy="true" />;
  };
}
