/**
 * One form's state: its values in a signal, the submit's busy flag and API errors, and the props
 * that bind a labelled Field or Check to a value. An API error whose JSON pointer `path` ends in a
 * field's name shows at that field; the rest go to FormErrors (`rest()`), which names the fields
 * the form showed, so no form lists them twice.
 */
import { useSignal } from "@preact/signals";
import { ApiFailure } from "./api.ts";
import { type Field, useFormAction } from "./components/Field.tsx";

type FieldProps = Parameters<typeof Field>[0];

/** Stops a submit with `message` shown at field `name`, as the API would. */
export function fail(name: string, message: string): never {
  throw new ApiFailure(400, [{ message, path: `/body/${name}` }]);
}

export function useForm<V extends object>(initial: V) {
  const state = useSignal<V>(initial);
  const { errors, setErrors, busy, run } = useFormAction();
  const v = state.value;
  // The fields bound during this render: their errors show beside them, not in `rest()`.
  const names: string[] = [];
  const set = <K extends keyof V>(k: K) => (x: V[K]) => {
    state.value = { ...state.value, [k]: x };
  };
  return {
    values: v,
    set,
    /** Replaces every value (e.g. with what the server saved), or makes them of the current. */
    replace: (next: V | ((now: V) => V)) => {
      state.value = typeof next === "function" ? next(state.value) : next;
    },
    errors,
    setErrors,
    busy,
    run,
    /** Props for a Field showing the string value `name` and its API error. */
    field: <K extends keyof V & string>(
      name: K,
      label: string,
      more?: Partial<FieldProps>,
    ): FieldProps => {
      names.push(name);
      return {
        label,
        name,
        value: String(v[name] ?? ""),
        onInput: set(name) as unknown as (x: string) => void,
        errors,
        ...more,
      };
    },
    /** Props for a Check showing the boolean value `name`. */
    check: <K extends keyof V & string>(name: K, label: string) => ({
      label,
      name,
      checked: !!v[name],
      onChange: set(name) as unknown as (x: boolean) => void,
    }),
    /** Props for FormErrors: the errors no bound field shows. */
    rest: (...more: string[]) => ({ errors, fields: [...names, ...more] }),
    /** A submit handler: no page load, busy while `action` runs, its errors kept. */
    onSubmit: (action: (values: V) => Promise<void> | void) => (e: Event) => {
      e.preventDefault();
      return run(async () => await action(state.value));
    },
  };
}
