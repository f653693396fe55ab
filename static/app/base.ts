/**
 * Parley's path on its host: `` at a host name's root, `/parley` under a base URL with a path.
 * The bundle is served from `<path>/dist/`, so its own URL says where the app is. The app's own
 * paths (routes, `/api/...`) leave it out; it is added where an address leaves the app.
 */
const dir = new URL("..", import.meta.url);
export const BASE = dir.protocol.startsWith("http") ? dir.pathname.slice(0, -1) : "";

/** The address of an app path (`/chat/...`, `/api/...`). */
export const at = (path: string): string => BASE + path;
