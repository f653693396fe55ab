/**
 * `GET /socket`: IRC over WebSocket for web IRC clients (gamja), one line per frame with the
 * `text.ircv3.net` or `binary.ircv3.net` subprotocol. The client logs in inside the IRC session (SASL or PASS), not with
 * a cookie, so a client served from another site may connect; its failed logins are counted apart
 * from the web's (under its address marked as another origin's), so a page cannot spend the
 * login throttle of its visitor's own address. The client's address is the one the web's login
 * sees (X-Forwarded-For's last hop behind a trusted proxy). Only while the IRC listener is on.
 */
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { errorBody } from "../http/errors.ts";
import { clientAddress, requestOrigin } from "../http/client.ts";
import {
  chooseSubprotocol,
  IRC_BINARY_SUBPROTOCOL,
  IRC_SUBPROTOCOLS,
} from "../bouncer/websocket.ts";

export function ircSocketRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/socket", (c) => {
    const bouncer = deps.bouncer;
    const fail = (status: 400 | 404, message: string) =>
      c.json(errorBody([{ message, path: "/" }]), status);
    if (!bouncer) return fail(404, "The IRC listener is off (PARLEY_IRC_LISTEN).");
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      return fail(400, "This is a WebSocket for IRC clients.");
    }
    const offered = (c.req.header("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim())
      .filter(Boolean);
    const protocol = chooseSubprotocol(offered);
    if (protocol === undefined) {
      return fail(400, `Only the ${IRC_SUBPROTOCOLS} subprotocols are spoken here.`);
    }
    // A page elsewhere may open this socket from the victim's browser and fail logins for the
    // victim's email from the victim's address: those count apart from the web's login.
    const origin = c.req.header("origin");
    const otherOrigin = origin !== undefined && origin !== requestOrigin(c, deps.config) &&
      origin !== deps.config.baseUrl.origin;
    const address = clientAddress(c, deps.config);
    const { socket, response } = Deno.upgradeWebSocket(
      c.req.raw,
      protocol ? { protocol } : {},
    );
    bouncer.acceptSocket(socket, address, otherOrigin, protocol === IRC_BINARY_SUBPROTOCOL);
    return response;
  });
  return app;
}
