/** Form building blocks: labelled fields whose errors come from the API error's `path`. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { ApiErrorItem } from "../types.ts";
import { ApiFailure } from "../api.ts";
import { t } from "../i18n.ts";

/** The message for field `name` (e.g. "password" matches `/body/password`), if any. */
function errorFor(errors: ApiErrorItem[], name: string): string | undefined {
  return errors.find((e) => e.path && e.path.split("/").pop() === name)?.message;
}

/** Errors that belong to no shown field (path `/` or a field the form lacks). */
function generalErrors(errors: ApiErrorItem[], fields: string[]): string[] {
  return errors.filter((e) => !fields.includes(e.path?.split("/").pop() ?? "")).map((e) =>
    e.message
  );
}

/** Turns a thrown value into error items. */
export function toErrors(e: unknown): ApiErrorItem[] {
  if (e instanceof ApiFailure) return e.errors;
  return [{ message: (e as Error)?.message ?? String(e), path: "/" }];
}

/** What shows an error: a field in error, a block of errors not tied to a field. */
const SHOWN = "[aria-invalid=true],.form-error";

/**
 * A form's submit state: `run` marks it busy, clears old errors and keeps the API's new ones.
 * A failure focuses the first field in error, else brings the general errors into view: on a form
 * longer than the screen, the user pressed a button far from where the error shows.
 */
export function useFormAction() {
  const [errors, setErrors] = useState<ApiErrorItem[]>([]);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setErrors([]);
    try {
      await action();
    } catch (err) {
      // The render that cleared this form's old errors ran before `action` could settle: what
      // shows an error now is another form's, and stays where it is.
      const old = [...document.querySelectorAll(SHOWN)];
      setErrors(toErrors(err));
      // After the render that shows the new errors.
      setTimeout(() => {
        const shown = [...document.querySelectorAll<HTMLElement>(SHOWN)].filter((e) =>
          !old.includes(e)
        );
        const el = shown.find((e) => e.ariaInvalid) ?? shown[0];
        el?.focus({ preventScroll: true });
        // Centred, with its label and message, and what lies near it (the button just pressed).
        el?.closest(".field,.form-error")?.scrollIntoView({ block: "center" });
      });
    } finally {
      setBusy(false);
    }
  };
  return { errors, setErrors, busy, run };
}

interface FieldProps {
  label: string;
  name: string;
  type?: string;
  value: string;
  onInput: (v: string) => void;
  errors?: ApiErrorItem[];
  autocomplete?: string;
  required?: boolean;
  hint?: string;
  placeholder?: string;
  readOnly?: boolean;
  inputMode?: string;
  autofocus?: boolean;
}

/** A text input with a visible label, an optional hint and its error right below. */
export function Field(p: FieldProps) {
  const id = `f-${p.name}`;
  const error = p.errors ? errorFor(p.errors, p.name) : undefined;
  return (
    <div class={"field" + (error ? " has-error" : "")}>
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type={p.type ?? "text"}
        value={p.value}
        onInput={(e) => p.onInput((e.currentTarget as HTMLInputElement).value)}
        autoComplete={p.autocomplete}
        required={p.required}
        placeholder={p.placeholder}
        readOnly={p.readOnly}
        autoFocus={p.autofocus}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={error ? `${id}-error` : p.hint ? `${id}-hint` : undefined}
      />
      {p.hint && !error && <p class="hint" id={`${id}-hint`}>{p.hint}</p>}
      {error && <p class="error" id={`${id}-error`} role="alert">{error}</p>}
    </div>
  );
}

/** A checkbox with its label. */
export function Check(
  p: { label: string; name: string; checked: boolean; onChange: (v: boolean) => void },
) {
  return (
    <label class="check">
      <input
        type="checkbox"
        name={p.name}
        checked={p.checked}
        onChange={(e) => p.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <span>{p.label}</span>
    </label>
  );
}

/** Errors not tied to a field, shown above the buttons. */
export function FormErrors(p: { errors: ApiErrorItem[]; fields: string[] }) {
  const list = generalErrors(p.errors, p.fields);
  if (!list.length) return null;
  return <div class="form-error" role="alert">{list.map((m) => <p key={m}>{m}</p>)}</div>;
}

/** A page section with a title, used by every settings screen. */
export function Panel(p: { title: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <section class={"panel" + (p.wide ? " wide" : "")} aria-label={p.title}>
      <h2>{p.title}</h2>
      {p.children}
    </section>
  );
}

/** A "saved" confirmation line. */
export function Saved(p: { show: boolean }) {
  return p.show ? <p class="saved" role="status">{t("Saved.")}</p> : null;
}
