/** Asks the configured update URL for the newest version, with a short timeout and a cache. */

/** How long an answer (or a failure) is kept. */
export const CACHE_MS = 3600_000;
/** How long asking may take. */
export const TIMEOUT_MS = 3000;

/**
 * A version "x.y.z" as one number: major + minor/100 + patch/10000 ("1.2.3" -> 1.0203), so a
 * plain numeric comparison orders versions while minor and patch stay below 100. Null when the
 * text is not a version.
 */
export function versionNumber(version: string): number | null {
  const m = /^v?(\d{1,6})(?:\.(\d{1,2}))?(?:\.(\d{1,2}))?(?:[-+].*)?$/.exec(version.trim());
  if (!m) return null;
  const [major, minor = 0, patch = 0] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
  return Number((major + minor / 100 + patch / 10000).toFixed(4));
}

/** Reads the newest version from an answer: JSON `{"version": "x.y.z"}` or the bare text. */
export function parseAnswer(text: string): number | null {
  try {
    const data = JSON.parse(text);
    if (typeof data === "string") return versionNumber(data);
    if (data && typeof data.version === "string") return versionNumber(data.version);
    if (data && typeof data.available === "number" && data.available >= 0) return data.available;
    return null;
  } catch {
    return versionNumber(text);
  }
}

/** Checks for updates; one per daemon, so its cache is shared by every user. */
export class UpdateChecker {
  #cached?: { at: number; available: number };
  #pending?: Promise<number>;

  constructor(readonly url: string, readonly running: string) {}

  /** `{available, running}` as numbers; `available` equals `running` when off or offline. */
  async check(now = Date.now()): Promise<{ available: number; running: number }> {
    const running = versionNumber(this.running) ?? 0;
    if (!this.url) return { available: running, running };
    if (!this.#cached || now - this.#cached.at > CACHE_MS) {
      // One request at a time, however many users ask at once.
      this.#pending ??= this.#ask(running).finally(() => this.#pending = undefined);
      this.#cached = { at: now, available: await this.#pending };
    }
    return { available: this.#cached.available, running };
  }

  async #ask(running: number): Promise<number> {
    try {
      const res = await fetch(this.url, {
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: { accept: "application/json, text/plain" },
      });
      if (!res.ok) {
        await res.body?.cancel();
        return running;
      }
      const text = (await res.text()).slice(0, 10_000);
      return parseAnswer(text) ?? running;
    } catch {
      return running;
    }
  }
}
