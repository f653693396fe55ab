// Parley's service worker: shows Web Push notifications (mentions and private messages that
// arrived while no Parley tab was open) and opens the conversation when one is clicked. Served
// from Parley's root (the base URL's path) so that its scope covers the whole app. Plain
// JavaScript, not bundled: the page's CSP allows exactly this file as a worker.
const sw = self;
/** Parley's root, with its trailing slash: the base URL's path, where this file is served. */
const root = new URL(".", sw.location.href).pathname;
/** The address of a path of the app (`/chat/...`, as the pushes and the page name them). */
const at = (path) => root + path.slice(1);

sw.addEventListener("install", () => sw.skipWaiting());
sw.addEventListener("activate", (event) => event.waitUntil(sw.clients.claim()));

sw.addEventListener("push", (event) => {
  let data = { title: "Parley", body: "", url: "/chat", tag: "parley" };
  try {
    data = { ...data, ...event.data.json() };
  } catch {
    // why: not ours or not JSON: the generic notification is shown rather than nothing.
  }
  event.waitUntil(sw.registration.showNotification(String(data.title).slice(0, 200), {
    body: String(data.body).slice(0, 500),
    tag: String(data.tag),
    icon: at("/icon.svg"),
    data: { url: String(data.url).startsWith("/") ? data.url : "/chat" },
  }));
});

sw.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url ?? "/chat";
  event.waitUntil((async () => {
    const tabs = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
    const tab = tabs.find((c) => {
      const u = new URL(c.url);
      return u.origin === sw.location.origin && u.pathname.startsWith(root);
    });
    if (tab) {
      await tab.focus();
      tab.postMessage({ parley: "open", url });
    } else await sw.clients.openWindow(at(url));
  })());
});
