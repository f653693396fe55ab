/**
 * This browser's push subscription, made and ended from the account page and told to the server;
 * apart from push.ts so that the first load does not carry it.
 */
import { api } from "./api.ts";
import { pushSupported } from "./push.ts";
import { at } from "./base.ts";

function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** This browser's current push subscription, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration(at("/"));
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
  }).catch((err) => console.warn("server still holds this push subscription", err));
  await sub.unsubscribe();
}
