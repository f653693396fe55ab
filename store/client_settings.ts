/** The web client's settings of a user as stored: JSON in `users`, read under the defaults. */
import { type ClientSettings, DEFAULT_CLIENT_SETTINGS } from "../protocol/client_settings.ts";

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
