/**
 * The update check: asks a configured URL for the newest version, with a short timeout, and keeps
 * the answer for an hour. Versions are compared as semver; the API (Convos's) reports them as
 * numbers, `major + minor / 100 + patch / 10000`, so 0.1.0 is 0.01 and 1.2.3 is 1.0203.
 */
// @ts-types="npm:@types/semver@7.8.0"
import semver from "semver";

/**
 * How long an answer (or a failure) is kept.
 *
 * @internal test seam
 */
export const UPDATE_CACHE_MS = 3600_000;
/** How long the update URL may take to answer. */
const UPDATE_TIMEOUT_MS = 3000;

/**
 * A version as semver, null when it is not one. Read loosely: `v1.2.3-rc.1`, and Convos's
 * `8.07` (major.minor, whose leading zero semver refuses) as 8.7.0.
 */
function parseVersion(text: string): string | null {
  const t = text.trim();
  const strict = semver.clean(t);
  if (strict) return strict;
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(-[0-9A-Za-z.-]+)?$/.exec(t);
  if (m) return semver.valid(`${+m[1]}.${+m[2]}.${+(m[3] ?? 0)}${m[4] ?? ""}`);
  return semver.coerce(t)?.version ?? null;
}

/**
 * A semver version as the API's number (see the module comment); NaN when it is not a version.
 *
 * @internal test seam
 */
export function versionNumber(version: string): number {
  const v = parseVersion(version);
  if (!v) return NaN;
  const [major, minor, patch] = [semver.major(v), semver.minor(v), semver.patch(v)];
  return Number((major + minor / 100 + patch / 10000).toFixed(4));
}

/**
 * Whether `candidate` is a newer release than `running` (semver order, pre-releases before).
 *
 * @internal test seam
 */
export function isNewer(candidate: string, running: string): boolean {
  return semver.gt(candidate, running);
}

/** The API's number back as a version: 1.0203 is 1.2.3. */
function fromNumber(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const [major, rest = ""] = n.toFixed(4).split(".");
  return `${Number(major)}.${Number(rest.slice(0, 2))}.${Number(rest.slice(2, 4))}`;
}

/**
 * The newest version in an update URL's answer: JSON `{"version": "1.2.3"}`, JSON
 * `{"available": 1.0203}`, or plain text `1.2.3`; null when there is none.
 *
 * @internal test seam
 */
export function parseAnswer(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const data = JSON.parse(trimmed);
    if (typeof data.available === "number") return fromNumber(data.available);
    if (typeof data.version === "string") return parseVersion(data.version);
    return null;
  }
  return parseVersion(trimmed);
}

/** Answers checkForUpdates: `{available, running}`, never failing. */
export class UpdateChecker {
  #cached?: { at: number; available: string | null };
  readonly #running: string | null;

  constructor(readonly url: string, version: string, readonly now = () => Date.now()) {
    this.#running = parseVersion(version);
  }

  /** The running version as the API's number. */
  get running(): number {
    return this.#running ? versionNumber(this.#running) : NaN;
  }

  /** The newest available version and the running one; offline or off, both are the running. */
  async check(): Promise<{ available: number; running: number }> {
    const running = this.running;
    if (!this.url) return { available: running, running };
    if (!this.#cached || this.now() - this.#cached.at > UPDATE_CACHE_MS) {
      this.#cached = { at: this.now(), available: await this.#ask() };
    }
    const newest = this.#cached.available;
    const newer = newest && (!this.#running || isNewer(newest, this.#running));
    return { available: newer ? versionNumber(newest) : running, running };
  }

  async #ask(): Promise<string | null> {
    try {
      const res = await fetch(this.url, {
        signal: AbortSignal.timeout(UPDATE_TIMEOUT_MS),
        headers: { accept: "application/json, text/plain" },
      });
      if (!res.ok) {
        await res.body?.cancel();
        return null;
      }
      return parseAnswer((await res.text()).slice(0, 10_000));
    } catch {
      // Offline or a garbage answer: "nothing newer" is the answer, there is nothing to keep.
      return null;
    }
  }
}
