/**
 * What the bouncer offers beside IRC (Web Push for IRC clients, the upload URL), set once when it
 * starts, and the ISUPPORT tokens that tell clients of them (soju.im/webpush's `VAPID`,
 * `soju.im/FILEHOST`).
 */
import type { Push } from "../push/mod.ts";
import type { Caps } from "./caps.ts";

/** The services of one bouncer. */
export interface BouncerServices {
  push?: Push;
  /** The absolute upload URL (routes/filehost.ts). */
  filehost?: string;
}

const services = new WeakMap<object, BouncerServices>();

/** Sets the services of a bouncer's context. */
export function provideServices(cx: object, s: BouncerServices): void {
  services.set(cx, s);
}

/** The services of a bouncer's context (none when it was started without them). */
export function servicesOf(cx: object): BouncerServices {
  return services.get(cx) ?? {};
}

/** The ISUPPORT tokens of the services a client with `caps` may use. */
export function serviceTokens(cx: object, caps: Caps): string[] {
  const s = servicesOf(cx);
  const tokens: string[] = [];
  // The spec: advertised to a client that enabled the capability; the key never changes.
  if (s.push && caps.has("soju.im/webpush")) tokens.push(`VAPID=${s.push.keys.publicKey}`);
  if (s.filehost) tokens.push(`soju.im/FILEHOST=${s.filehost}`);
  return tokens;
}
