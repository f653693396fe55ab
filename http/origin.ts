/**
 * Whether a state-changing API request was started by a page of another origin (CSRF), whether or
 * not it carries a cookie: a form posted to the login by another site, with no cookie at all, would
 * leave the victim's browser logged into the attacker's account.
 *
 * The rule, from what browsers send and scripts do not:
 * - `Sec-Fetch-Site` other than `same-origin` or `none` (a user's own navigation) is refused;
 * - an `Origin` must be Parley's own (the request's origin or the base URL's); `null` is not;
 * - without an `Origin`, a `Referer` must be of Parley's origin;
 * - with none of the three (curl, scripts, IRC clients with an app token) the request goes on: no
 *   browser leaves them all out of a cross-origin POST, PUT or DELETE.
 */
import type { Context } from "hono";
import type { Config } from "../config.ts";
import { requestOrigin } from "./client.ts";

/** Why an unsafe request is refused as started by another origin (the header that shows it). */
interface Foreign {
  header: "sec-fetch-site" | "origin" | "referer";
  message: string;
}

/** Why an unsafe request is refused as started by another origin, or undefined to let it go on. */
export function foreignRequest(c: Context, config: Config): Foreign | undefined {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    return { header: "sec-fetch-site", message: `The browser says a ${site} page sent it.` };
  }
  const ours = (origin: string) =>
    origin === requestOrigin(c, config) || origin === config.baseUrl.origin;
  const origin = c.req.header("origin");
  if (origin !== undefined) {
    return ours(origin)
      ? undefined
      : { header: "origin", message: "It comes from another origin." };
  }
  const referer = c.req.header("referer");
  if (referer === undefined) return undefined;
  let from = "";
  try {
    from = new URL(referer).origin;
  } catch { /* why: a Referer that is no URL is nobody's origin: refused below */ }
  return ours(from)
    ? undefined
    : { header: "referer", message: "It comes from a page of another origin." };
}
