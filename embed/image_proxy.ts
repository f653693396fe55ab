/**
 * Preview images fetched by the server for the browser, so that the browser never contacts the
 * remote site (an `http:` image works on an `https:` page, and the remote site does not learn who
 * looks). Same address rules and limits as the previews; only raster images recognised by their
 * first bytes are passed on (never SVG, which can carry script), at most a few MB each, kept in a
 * bounded cache in memory.
 */
import { isPublicAddress } from "./address.ts";
import { lruCache, Viewed } from "./cache.ts";
import { FetchFailed, safeFetch, type SafeFetchOptions } from "./safe_fetch.ts";

/**
 * Limits of the image fetches and their cache; tests may shorten them.
 *
 * @internal test seam
 */
export const IMAGE_LIMITS = {
  timeoutMs: 5000,
  maxRedirects: 3,
  maxBytes: 5 * 1024 * 1024,
  /** Bytes of images kept in memory at most, and for how long. */
  cacheBytes: 64 * 1024 * 1024,
  cacheMs: 3600_000,
  /** Distinct images fetched at once at most; more wait for none and fail. */
  inFlight: 32,
  /**
   * Of those, the most one user's requests may start: one user's slow images cannot take every
   * fetch and make everyone else's previews fail.
   */
  inFlightPerUser: 8,
};

/**
 * Too many images are being fetched (for this user, or for everyone) to start another; a fetch
 * ends within `timeoutMs`, so asking again after `retryAfterS` seconds may succeed.
 */
export class TooManyFetches extends Error {
  readonly retryAfterS = Math.ceil(IMAGE_LIMITS.timeoutMs / 1000);
  constructor(readonly whose: "user" | "all") {
    super(
      whose === "user"
        ? `You have ${IMAGE_LIMITS.inFlightPerUser} images being fetched already; try again later.`
        : "Too many images are being fetched; try again later.",
    );
  }
}

/** An image ready to serve: its bytes and the type they were recognised as. */
interface ProxiedImage {
  type: string;
  bytes: Uint8Array<ArrayBuffer>;
}

const ascii = (bytes: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...bytes.subarray(from, to));

/** The type of a raster image by its first bytes, or undefined for anything else. */
function imageType(b: Uint8Array): string | undefined {
  if (b.length < 12) return undefined;
  if (b[0] === 0x89 && ascii(b, 1, 8) === "PNG\r\n\x1a\n") return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (/^GIF8[79]a$/.test(ascii(b, 0, 6))) return "image/gif";
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "image/webp";
  if (ascii(b, 4, 8) === "ftyp" && /^avi[fs]$/.test(ascii(b, 8, 12))) return "image/avif";
  return undefined;
}

/** A declared type that may hold a raster image (servers often say octet-stream, or nothing). */
function mayBeImage(headers: Headers): boolean {
  const type = (headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type.startsWith("image/svg")) return false;
  return !type || type.startsWith("image/") || type === "application/octet-stream";
}

/** Fetches preview images under the address rules, with a cache. */
export class ImageProxy {
  #cache = lruCache<Viewed<ProxiedImage>>(
    Infinity,
    IMAGE_LIMITS.cacheMs,
    undefined,
    { weigh: (img) => img.value.bytes.length, maxWeight: IMAGE_LIMITS.cacheBytes },
  );
  #pending = new Map<string, Promise<Viewed<ProxiedImage>>>();
  /** The fetches each user's requests started that have not ended. */
  #started = new Map<number, number>();
  #fetch: SafeFetchOptions;

  /** `allowPrivate` lifts the public-address rule (intranets, tests). */
  constructor(allowPrivate: boolean, extra: SafeFetchOptions = {}) {
    this.#fetch = { allowAddress: allowPrivate ? () => true : isPublicAddress, ...extra };
  }

  /**
   * Whether `viewer` (a user id) has had the fresh cached image of `url` before (fetches nothing);
   * another user's request of it does not count.
   */
  cached(url: URL, viewer: number): boolean {
    return this.#cache.get(url.href)?.seenBy(viewer) ?? false;
  }

  /**
   * The image at `url`, for `viewer` (a user id, when a user asks); throws FetchRefused (scheme,
   * address), TooManyFetches or FetchFailed (anything else).
   */
  async image(url: URL, viewer?: number): Promise<ProxiedImage> {
    let entry = this.#cache.get(url.href);
    // Several people opening the same preview at once cause one fetch.
    entry ??= await (this.#pending.get(url.href) ?? this.#start(url, viewer));
    if (viewer !== undefined) entry.see(viewer);
    return entry.value;
  }

  /** Starts a fetch of `url` for `viewer`, within the bounds. */
  #start(url: URL, viewer?: number): Promise<Viewed<ProxiedImage>> {
    const mine = viewer === undefined ? 0 : this.#started.get(viewer) ?? 0;
    if (mine >= IMAGE_LIMITS.inFlightPerUser) throw new TooManyFetches("user");
    if (this.#pending.size >= IMAGE_LIMITS.inFlight) throw new TooManyFetches("all");
    if (viewer !== undefined) this.#started.set(viewer, mine + 1);
    const p = this.#load(url).finally(() => {
      this.#pending.delete(url.href);
      if (viewer === undefined) return;
      const left = this.#started.get(viewer)! - 1;
      if (left) this.#started.set(viewer, left);
      else this.#started.delete(viewer);
    });
    this.#pending.set(url.href, p);
    return p;
  }

  async #load(url: URL): Promise<Viewed<ProxiedImage>> {
    const max = IMAGE_LIMITS.maxBytes;
    const parts: Uint8Array[] = [];
    let size = 0;
    let refused = "";
    const res = await safeFetch(url, {
      timeoutMs: IMAGE_LIMITS.timeoutMs,
      maxRedirects: IMAGE_LIMITS.maxRedirects,
      ...this.#fetch,
      userAgent: "Parley image preview",
      headers: new Headers({ accept: "image/avif,image/webp,image/png,image/jpeg,image/gif" }),
      // One byte past the limit tells a body that is too large from one that just fits.
      maxBytes: max + 1,
      onBody: (piece, head) => {
        if (head.status >= 400) return true;
        // Refused from the head alone where it can be: nothing more is read.
        if (!mayBeImage(head.headers)) refused = "The address is not an image.";
        else if (Number(head.headers.get("content-length") ?? 0) > max) {
          refused = "The image is too large.";
        }
        if (refused) return true;
        parts.push(piece.slice());
        size += piece.length;
        return false;
      },
    });
    if (res.status >= 400) throw new FetchFailed(`The image answered with status ${res.status}.`);
    if (refused) throw new FetchFailed(refused);
    if (res.status !== 200) throw new FetchFailed("The address did not answer with an image.");
    if (size > max || res.truncated) throw new FetchFailed("The image is too large.");
    const bytes = new Uint8Array(size);
    let off = 0;
    for (const p of parts) bytes.set(p, (off += p.length) - p.length);
    // The bytes decide, not the declared type.
    const type = imageType(bytes);
    if (!type) throw new FetchFailed("The address is not an image.");
    const img = new Viewed({ type, bytes });
    this.#cache.set(url.href, img);
    return img;
  }
}
