/**
 * Web Push in this browser, the part every page needs: the service worker (static/sw.js) and the
 * optional sound on mentions. The subscription itself is the account page's (push_subscription.ts).
 * Without a service worker (plain HTTP on another host, old browsers) the settings say
 * notifications are unavailable.
 */
import { navigate } from "./router.ts";
import { at } from "./base.ts";

/** Whether this browser can receive pushes at all (secure context, worker, PushManager). */
export const pushSupported = () =>
  typeof navigator !== "undefined" && "serviceWorker" in navigator &&
  typeof PushManager !== "undefined" && globalThis.isSecureContext;

/** Registers the service worker once the app runs; a click on a push opens its conversation. */
export function registerWorker(): void {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(at("/sw.js"), { scope: at("/") }).catch((err) =>
    console.warn("service worker not registered", err)
  );
  navigator.serviceWorker.addEventListener("message", (e) => {
    const url = (e.data as { parley?: string; url?: string })?.url;
    if ((e.data as { parley?: string })?.parley === "open" && url?.startsWith("/")) navigate(url);
  });
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
    // why: no audio output (or not allowed before a user gesture): stay silent.
  }
}
