/**
 * The account's current password, asked for when the server wants it: a change that would let a
 * stolen session keep a way in (a new password, an app token, a certificate) needs it, unless the
 * session was opened with the password a few minutes ago.
 */
import { useEffect, useRef } from "preact/hooks";
import { ApiFailure } from "../api.ts";
import { t } from "../i18n.ts";
import { useForm } from "../form.ts";
import { Field, FormErrors } from "./Field.tsx";

/** The server's answer when a change needs the current password. */
export function asksCurrentPassword(err: unknown): boolean {
  return err instanceof ApiFailure &&
    err.errors.some((e) => e.path === "/body/current_password");
}

/**
 * A modal dialog asking for the current password: `why` says what for, `action` names its button;
 * `confirm` sends the change with it and throws the API's errors (a wrong password is shown at the
 * field and the dialog stays open).
 */
export function CurrentPasswordDialog(
  p: {
    why: string;
    action: string;
    confirm: (current: string) => Promise<void>;
    cancel: () => void;
  },
) {
  const ref = useRef<HTMLDialogElement>(null);
  const form = useForm({ current_password: "" });
  useEffect(() => {
    if (!ref.current?.open) ref.current?.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      class="password-dialog"
      aria-labelledby="password-dialog-title"
      onClose={p.cancel}
    >
      <form noValidate onSubmit={form.onSubmit((v) => p.confirm(v.current_password))}>
        <h2 id="password-dialog-title">{t("Confirm your password")}</h2>
        <p>{p.why}</p>
        <Field
          {...form.field("current_password", t("Current password"))}
          type="password"
          autocomplete="current-password"
          autofocus
        />
        <FormErrors {...form.rest()} />
        <div class="actions">
          <button class="primary" type="submit" disabled={form.busy}>{p.action}</button>
          <button type="button" onClick={() => ref.current?.close()}>{t("Cancel")}</button>
        </div>
      </form>
    </dialog>
  );
}
