/**
 * Convos 8.07 t/web-base-url.t: nothing to port.
 *
 * LEFT OUT web-base-url.t:13-48 (perl internals): every check asks routes the test adds to the
 * Mojolicious app (`/t/base-url`, `/t/request-base`) about `url_for` and `web_url` under
 * X-Request-Base and CONVOS_REQUEST_BASE; none is a route of Convos's API.
 */
