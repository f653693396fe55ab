/**
 * A reverse proxy on loopback that serves Parley under a path of its own host and takes the path
 * off before passing a request on, as nginx does with `location /parley/ { proxy_pass
 * http://127.0.0.1:3000/; }`: the Host it was asked by goes on as X-Forwarded-Host, and WebSockets
 * are passed on too. A request outside the path is answered 404 and kept in `outside`, so a page
 * that asks for anything outside its path fails and says what. Headers set by `setHeader` go on
 * every request passed on, replacing the client's, as a login proxy's (forward auth) do.
 */

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "upgrade",
  "transfer-encoding",
  "host",
  // The answer goes on as it came: undecoded, so the browser's encodings are not offered.
  "accept-encoding",
];

/** Deno's WebSocket also takes the handshake's headers (the DOM's types do not say so). */
const SocketWithHeaders = WebSocket as unknown as new (
  url: string,
  init: { headers: Record<string, string> },
) => WebSocket;

export interface PathProxy {
  /** The proxy's origin: Parley is at `url + path`. */
  url: string;
  /** Paths asked for outside the proxy's path. */
  outside: string[];
  /** While on, a WebSocket's handshake waits (the page's socket stays opening) until it is off. */
  holdSockets(on: boolean): void;
  /** Sets `name` on every request passed on from now, whatever the client sent. */
  setHeader(name: string, value: string): void;
  close(): Promise<void>;
}

/** Serves `target()` (an origin, asked per request: it may start after the proxy) under `path`. */
export function startPathProxy(path: string, target: () => string): Promise<PathProxy> {
  const outside: string[] = [];
  const set = new Headers();
  const forwarded = (req: Request) => {
    const headers = new Headers(req.headers);
    for (const h of HOP_BY_HOP) headers.delete(h);
    for (const [name, value] of set) headers.set(name, value);
    headers.set("accept-encoding", "identity");
    headers.set("x-forwarded-host", new URL(req.url).host);
    headers.set("x-forwarded-proto", "http");
    headers.set("x-forwarded-for", "127.0.0.1");
    return headers;
  };

  let held: Promise<void> = Promise.resolve();
  let release = () => {};
  const holdSockets = (on: boolean) => {
    release();
    held = on ? new Promise((r) => (release = r)) : Promise.resolve();
  };

  const passSocket = async (req: Request, rest: string) => {
    await held;
    // Read before the upgrade, which ends the request.
    const headers = Object.fromEntries(forwarded(req));
    const { socket, response } = Deno.upgradeWebSocket(req);
    for (const h of ["sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"]) {
      delete headers[h];
    }
    const upstream = new SocketWithHeaders(target().replace(/^http/, "ws") + rest, { headers });
    const early: (string | ArrayBuffer | Blob)[] = [];
    socket.onmessage = (e) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(e.data);
      else early.push(e.data);
    };
    upstream.onopen = () => {
      for (const m of early.splice(0)) upstream.send(m);
    };
    upstream.onmessage = (e) => socket.readyState === WebSocket.OPEN && socket.send(e.data);
    const closeBoth = () => {
      if (socket.readyState < WebSocket.CLOSING) socket.close();
      if (upstream.readyState < WebSocket.CLOSING) upstream.close();
    };
    socket.onclose = closeBoth;
    upstream.onclose = closeBoth;
    upstream.onerror = closeBoth;
    return response;
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) =>
        resolve({
          url: `http://127.0.0.1:${port}`,
          outside,
          holdSockets,
          setHeader: (name, value) => set.set(name, value),
          // A held handshake would hold the shutdown.
          close: () => (holdSockets(false), server.shutdown()),
        }),
    }, async (req) => {
      const url = new URL(req.url);
      if (url.pathname !== path && !url.pathname.startsWith(path + "/")) {
        outside.push(url.pathname);
        return new Response("outside the proxy's path", { status: 404 });
      }
      const rest = (url.pathname.slice(path.length) || "/") + url.search;
      if (req.headers.get("upgrade")?.toLowerCase() === "websocket") return passSocket(req, rest);
      const res = await fetch(target() + rest, {
        method: req.method,
        headers: forwarded(req),
        body: req.body,
        redirect: "manual",
      });
      return new Response(res.body, { status: res.status, headers: res.headers });
    });
  });
}
