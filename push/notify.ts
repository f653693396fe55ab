/**
 * Web Push for mentions and private messages: to the browsers' subscriptions while none of the
 * user's browsers is open, and to other sources' (IRC clients' through soju.im/webpush, which
 * decide for themselves, bouncer/webpush.ts), one event counted once against the user's rate. The
 * `web-push` package encrypts (aes128gcm) and signs (VAPID); the link previews' checked request
 * delivers, bounded in time, and only to addresses the endpoint policy allows, checked at connect
 * time (a name that resolved to a public address when subscribing may not point inside later).
 */
import type webpushApi from "./web_push.d.ts";
import { lazy } from "../lib/lazy.ts";
import type { EventBus } from "../lib/bus.ts";
import type { NotificationEvent } from "../protocol/events.ts";
import { log } from "../lib/log.ts";
import type { Store } from "../store/mod.ts";
import type { PushSubscriptionRecord } from "../store/push.ts";
import type { VapidKeys } from "./vapid.ts";
import { FetchFailed, FetchRefused, safeFetch, type SafeResponse } from "../embed/safe_fetch.ts";
import { type EndpointPolicy, endpointPolicy } from "./endpoint.ts";

/** Limits that keep a busy channel or a hostile nick from flooding phones and push services. */
export const PUSH_LIMITS = {
  /** Pushes per user per window; the rest are dropped (the unread counts still tell). */
  perWindow: 10,
  windowMs: 10 * 60_000,
  /** Characters of the message text in a payload (push services take about 4 KB). */
  textChars: 300,
  /** Bytes of the whole JSON payload, before encryption. */
  payloadBytes: 2048,
  /** A push service that does not answer within this is given up on. */
  timeoutMs: 10_000,
  /** Subscriptions per user (one per browser session). */
  subscriptions: 10,
  /** Bytes of a push service's answer read (it says nothing Parley uses). */
  answerBytes: 4096,
};

/** What a push carries; the service worker shows it (static/sw.js). */
interface PushPayload {
  title: string;
  body: string;
  /** The client path to open on a click. */
  url: string;
  /** One notification per conversation: a newer one replaces it. */
  tag: string;
}

const encoder = new TextEncoder();

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + "…";
}

/**
 * The payload of a `notification` bus event, never larger than PUSH_LIMITS.payloadBytes.
 *
 * @internal test seam
 */
export function payloadOf(ev: NotificationEvent): string {
  const cid = String(ev.connection_id ?? "");
  const conv = String(ev.conversation_id ?? "");
  const from = cut(String(ev.from ?? ""), 64);
  const p: PushPayload = {
    title: conv && conv !== from.toLowerCase() ? `${from} in ${cut(conv, 64)}` : from,
    body: cut(String(ev.message ?? ""), PUSH_LIMITS.textChars),
    url: `/chat/${encodeURIComponent(cid)}` + (conv ? `/${encodeURIComponent(conv)}` : ""),
    tag: cut(`${cid}/${conv}`, 200),
  };
  let json = JSON.stringify(p);
  // Multi-byte text can still exceed the byte budget: shorten the body until it fits.
  while (encoder.encode(json).length > PUSH_LIMITS.payloadBytes && p.body.length > 0) {
    p.body = cut(p.body, Math.floor(p.body.length / 2));
    json = JSON.stringify(p);
  }
  return json;
}

/** `web-push` and what it pulls in (Node's crypto and HTTP layers): loaded for the first push. */
const loadWebPush = lazy(async () => (await import("web-push")).default as typeof webpushApi);

/** What the notifier needs. */
interface NotifierDeps {
  store: Store;
  bus: EventBus;
  keys: VapidKeys;
  /** The VAPID subject: a mailto: or https: URL push services may contact. */
  subject: () => Promise<string>;
  /** Whether endpoints on private addresses may be reached (intranets, tests). */
  allowPrivate: boolean;
}

/** One delivery: where, with which keys, what. */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
  /** The plaintext, encrypted for this subscription. */
  payload: string;
  userId: number;
  /** Forgets the subscription: the push service says it is gone, or it points inside. */
  remove(): Promise<unknown>;
}

/**
 * Subscriptions beside the browsers' that a notification may go to: each source says which of
 * its subscriptions want this event, with their payloads (the bouncer's IRC clients).
 */
export type PushSource = (userId: number, ev: NotificationEvent) => Promise<PushTarget[]>;

/**
 * Sends pushes for the bus's `notification` events (a browser's: only while its session has no
 * socket open).
 */
export class PushNotifier {
  /** Which addresses deliveries (and new subscriptions) may reach. */
  readonly policy: EndpointPolicy;
  #windows = new Map<number, { start: number; count: number }>();
  #inFlight = new Set<Promise<unknown>>();
  #untap?: () => void;
  /** Other subscribers of notifications (the bouncer adds its IRC clients'). */
  readonly sources = new Set<PushSource>();

  constructor(private deps: NotifierDeps) {
    this.policy = endpointPolicy(deps.allowPrivate);
  }

  /** Starts listening to the bus. */
  start(): void {
    this.#untap ??= this.deps.bus.tap((userId, ev) => {
      // A mention of the server's history, filled in after a gap, is no news to push.
      if (ev.event !== "notification" || ev.history) return;
      const job = this.#notifyEvent(userId, ev).catch((err) =>
        log.warn("push failed", { uid: userId, error: err })
      );
      this.#inFlight.add(job);
      job.finally(() => this.#inFlight.delete(job));
    }, ["notification"]);
  }

  /** Stops listening and waits for the pushes under way. */
  async stop(): Promise<void> {
    this.#untap?.();
    this.#untap = undefined;
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Resolves once the pushes under way are done. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Whether the user may get one more push now (counts it). */
  #allow(userId: number): boolean {
    const now = Date.now();
    let w = this.#windows.get(userId);
    if (!w || now - w.start >= PUSH_LIMITS.windowMs) {
      this.#windows.set(userId, w = { start: now, count: 0 });
    }
    if (w.count >= PUSH_LIMITS.perWindow) return false;
    w.count++;
    return true;
  }

  /**
   * The browsers' subscriptions as deliveries of `payload`, but for those whose login session has
   * Parley open (`open`): that page shows the notification itself.
   */
  async #browserTargets(
    userId: number,
    payload: string,
    open: ReadonlySet<string> = new Set(),
  ): Promise<PushTarget[]> {
    const store = this.deps.store.push;
    const subscriptions = (await store.forUser(userId)).filter((s) => !open.has(s.sessionHash));
    return subscriptions.map((s: PushSubscriptionRecord) => ({
      endpoint: s.endpoint,
      p256dh: s.p256dh,
      auth: s.auth,
      payload,
      userId: s.userId,
      remove: () => store.remove(s.endpoint),
    }));
  }

  /**
   * A notification: every browser's subscription but those of a session with Parley open (a
   * phone is told while the tab at the desk is open), and every source's subscriptions.
   */
  async #notifyEvent(userId: number, ev: NotificationEvent): Promise<number> {
    const open = this.deps.bus.openSessions(userId);
    const targets = await this.#browserTargets(userId, payloadOf(ev), open);
    for (const source of this.sources) targets.push(...await source(userId, ev));
    return await this.#deliver(userId, targets);
  }

  /** Pushes `payload` to every browser subscription of a user; returns how many took it. */
  async notify(userId: number, payload: string): Promise<number> {
    return await this.#deliver(userId, await this.#browserTargets(userId, payload));
  }

  /** One push (counted once against the user's rate) to each target; how many took it. */
  async #deliver(userId: number, targets: PushTarget[]): Promise<number> {
    if (targets.length === 0) return 0;
    if (!this.#allow(userId)) {
      log.debug("push rate limited", { uid: userId });
      return 0;
    }
    const subject = await this.deps.subject();
    const results = await Promise.all(targets.map((t) => this.#send(t, subject)));
    return results.filter(Boolean).length;
  }

  async #send(sub: PushTarget, subject: string): Promise<boolean> {
    const webpush = await loadWebPush();
    const req = webpush.generateRequestDetails(
      { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
      sub.payload,
      {
        vapidDetails: { subject, ...this.deps.keys },
        TTL: 24 * 3600,
        urgency: "high",
        contentEncoding: "aes128gcm",
      },
    );
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) headers.set(k, String(v));
    let res: SafeResponse;
    try {
      res = await safeFetch(new URL(req.endpoint), {
        method: "POST",
        headers,
        body: (req.body ?? new Uint8Array(0)) as Uint8Array,
        maxRedirects: 0,
        maxBytes: PUSH_LIMITS.answerBytes,
        timeoutMs: PUSH_LIMITS.timeoutMs,
        userAgent: "Parley",
        allowAddress: this.policy.allow,
        resolve: this.policy.resolve,
        caCerts: this.policy.caCerts,
      });
    } catch (err) {
      if (err instanceof FetchRefused) {
        // The name now points inside the network: it will not be reached, now or later.
        await sub.remove();
        log.warn("push endpoint not public; removed", { uid: sub.userId, error: err.message });
        return false;
      }
      if (!(err instanceof FetchFailed)) throw err;
      log.info("push service unreachable", { uid: sub.userId, error: err.message });
      return false;
    }
    if (res.status === 404 || res.status === 410) {
      // The browser unsubscribed or the subscription expired: it will never work again.
      await sub.remove();
      log.info("push subscription gone; removed", { uid: sub.userId, status: res.status });
      return false;
    }
    const ok = res.status >= 200 && res.status < 300;
    if (!ok) log.info("push refused", { uid: sub.userId, status: res.status });
    return ok;
  }
}
