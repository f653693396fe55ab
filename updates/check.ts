/**
 * The update check: asks a configured URL for the newest version, with a short timeout, and keeps
 * the answer for an hour. Versions are numbers: `major + minor / 100 + patch / 10000`, so 0.1.0 is
 * 0.01 and 1.2.3 is 1.0203 (each part below 100 keeps the order of the versions).
 */

/** How long an answer (or a failure) is kept. */
export const UPDATE_CACHE_MS = 3600_000;
/** How long the update URL may take to answer. */
export const UPDATE_TIMEOUT_MS = 3000;

/** `major.minor.patch` as a number (see the module comment); NaN when it is not a version. */
export function versionNumber(version: string): number {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  if (!m) return NaN;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  return Number((major + minor / 100 + patch / 10000).toFixed(4));
}

/**
 * The newest version in an update URL's answer: JSON `{"version": "1.2.3"}`, JSON
 * `{"available": 1.0203}`, or plain text `1.2.3`.
 */
export function parseAnswer(text: string): number {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const data = JSON.parse(trimmed);
    if (typeof data.available === "number" && Number.isFinite(data.available)) {
      return data.available;
    }
    if (typeof data.version === "string") return versionNumber(data.version);
    return NaN;
  }
  return versionNumber(trimmed);
}

/** Answers checkForUpdates: `{available, running}`, never failing. */
export class UpdateChecker {
  #cached?: { at: number; available: number };
  readonly running: number;

  constructor(readonly url: string, version: string, readonly now = () => Date.now()) {
    this.running = versionNumber(version);
  }

  /** The newest available version and the running one; offline or off, both are the running. */
  async check(): Promise<{ available: number; running: number }> {
    const running = this.running;
    if (!this.url) return { available: running, running };
    if (!this.#cached || this.now() - this.#cached.at > UPDATE_CACHE_MS) {
      this.#cached = { at: this.now(), available: await this.#ask() };
    }
    return { available: Math.max(this.#cached.available, running), running };
  }

  async #ask(): Promise<number> {
    try {
      const res = await fetch(this.url, {
        signal: AbortSignal.timeout(UPDATE_TIMEOUT_MS),
        headers: { accept: "application/json, text/plain" },
      });
      if (!res.ok) {
        await res.body?.cancel();
        return this.running;
      }
      const n = parseAnswer((await res.text()).slice(0, 10_000));
      return Number.isFinite(n) ? n : this.running;
    } catch {
      return this.running;
    }
  }
}
