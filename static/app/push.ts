/**
 * Web Push in this browser: the service worker (static/sw.js), the push subscription sent to the
 * server, and the optional sound on mentions. Without a service worker (plain HTTP on another
 * host, old browsers) the settings say notifications are unavailable.
 */
import { api } from "./api.ts";
import { navigate } from "./router.ts";

/** Whether this browser can receive pushes at all (secure context, worker, PushManager). */
export const pushSupported = () =>
  typeof navigator !== "undefined" && "serviceWorker" in navigator &&
  typeof PushManager !== "undefined" && globalThis.isSecureContext;

/** Registers the service worker once the app runs; a click on a push opens its conversation. */
export function registerWorker(): void {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch((err) =>
    console.warn("service worker not registered", err)
  );
  navigator.serviceWorker.addEventListener("message", (e) => {
    const url = (e.data as { parley?: string; url?: string })?.url;
    if ((e.data as { parley?: string })?.parley === "open" && url?.startsWith("/")) navigate(url);
  });
}

function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** This browser's current push subscription, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration("/");
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** Subscribes this browser and tells the server; throws with a reason the user can read. */
export async function enablePush(): Promise<void> {
  const { public_key } = await api("getPush");
  const reg = await navigator.serviceWorker.ready;
  let sub = await reg.pushManager.getSubscription();
  const key = keyBytes(public_key);
  if (sub) {
    // A subscription made for another server key (a new install) would never get a push.
    const old = sub.options.applicationServerKey;
    if (old && new Uint8Array(old).join() !== key.join()) {
      await sub.unsubscribe();
      sub = null;
    }
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const json = sub.toJSON();
  await api("subscribePush", {
    body: {
      endpoint: json.endpoint ?? "",
      keys: { p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" },
    },
  });
}

/** Unsubscribes this browser here and on the server. */
export async function disablePush(): Promise<void> {
  const sub = await currentSubscription();
  if (!sub) return;
  await api("unsubscribePush", {
    body: { endpoint: sub.endpoint },
  }).catch(() => {});
  await sub.unsubscribe();
}

let audio: AudioContext | undefined;

/** A short two-note chime for a mention, when the user chose sound (made, not downloaded). */
export function mentionSound(): void {
  if (localStorage.getItem("parley.sound") !== "on") return;
  try {
    audio ??= new AudioContext();
    const t = audio.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, t + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.001, t + i * 0.12 + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(t + i * 0.12);
      osc.stop(t + i * 0.12 + 0.25);
    }
  } catch {
    // No audio output (or not allowed before a user gesture): stay silent.
  }
}
