/**
 * What Tab completion puts after a nick at the start of a line ("bob: "): the user's setting,
 * which prefs.ts writes here, apart from it so that completion stays free of the DOM and the API.
 */
import { signal } from "@preact/signals";

export const nickSuffix = signal(": ");
