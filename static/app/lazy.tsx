/**
 * What the first load leaves out, fetched when first needed: the account and admin screens
 * (chunks of their own), the other rare screens together (components/rare_screens.ts), and what
 * the chat needs only after its first paint together (components/after_load.ts: the overlays,
 * previews, command answers as tables, the completion popup's logic, the topic's editor,
 * uploads). Fewer lazy entries keep the first load's shared code in fewer, larger chunks, which
 * compress better.
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

/**
 * A module fetched by the first `load()`: `get()` is undefined until it has arrived, and a
 * component that read it renders again when it does. `load()` resolves with it (undefined when the
 * fetch failed, which is tried again next time), for a caller that cannot wait for a render.
 */
export function lazyModule<M>(
  load: () => Promise<M>,
): { get(): M | undefined; load(): Promise<M | undefined> } {
  let found: M | undefined;
  let pending: Promise<M | undefined> | undefined;
  return {
    get: () => {
      loaded.value; // subscribe: the module's arrival renders the reader again
      return found;
    },
    load: () => {
      if (found) return Promise.resolve(found);
      pending ??= load().then((m) => (found = m), () => undefined).finally(() => {
        pending = undefined;
        loaded.value++;
      });
      return pending;
    },
  };
}

/** The after-first-paint chunk (components/after_load.ts): one handle for everyone it draws for. */
export const afterLoad = lazyModule(() => import("./components/after_load.ts"));
