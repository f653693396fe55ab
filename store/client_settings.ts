/** The web client's settings of a user as stored: JSON in `users`, read under the defaults. */
import {
  type ClientSettings,
  type ClientSettingsChange,
  DEFAULT_CLIENT_SETTINGS,
} from "../protocol/client_settings.ts";

/**
 * The stored JSON with the defaults under it. A key the API no longer has is dropped; a stored
 * object that is not one (never written by the API) reads as the defaults.
 */
export function readClientSettings(json: string): ClientSettings {
  let stored: Record<string, unknown> = {};
  try {
    const v = JSON.parse(json);
    if (v && typeof v === "object" && !Array.isArray(v)) stored = v;
  } catch { /* why: not JSON, never written by the API: it reads as the defaults, as documented */ }
  const out: Record<string, unknown> = { ...DEFAULT_CLIENT_SETTINGS };
  for (const k of Object.keys(DEFAULT_CLIENT_SETTINGS)) {
    if (k in stored) out[k] = stored[k];
  }
  return out as unknown as ClientSettings;
}

/** The stored JSON after a save of `change`: the keys sent replace theirs, one revision more. */
export function savedClientSettings(json: string, change: ClientSettingsChange): string {
  const before = readClientSettings(json);
  const revision = Number.isSafeInteger(before.revision) && before.revision >= 0
    ? before.revision + 1
    : 1;
  return JSON.stringify({ ...before, ...change, revision });
}
