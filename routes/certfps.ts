/**
 * On the account page: the client certificates that log the user in to the IRC listener (SASL
 * EXTERNAL), by fingerprint; and BouncerServ for the web client's `/bouncerserv`, which runs the
 * same commands an attached IRC client sends it.
 */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { jsonBody, validate } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { confirmPassword, passwordRecent } from "../http/confirm_password.ts";
import { API, bodyOf } from "../protocol/contract/mod.ts";
import { type CertfpRecord, MAX_CERTFPS } from "../store/certfp.ts";
import { runService } from "../bouncer/service/mod.ts";

const certfpJson = (c: CertfpRecord) => ({
  fingerprint: c.fingerprint,
  created: new Date(c.created).toISOString(),
});

/** Routes under /api: /certfps, /bouncerserv. */
export function certfpRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  bind(app, "listCertfps", requireUser, async (c) => {
    const list = await store.certfp.list(currentUser(c).id);
    return c.json({ certfps: list.map(certfpJson) });
  });

  bind(app, "addCertfp", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("addCertfp"), { required: true });
    const { fingerprint } = body;
    await confirmPassword(c, deps, currentUser(c), body.current_password, "add a certificate");
    const userId = currentUser(c).id;
    const added = await store.certfp.add(userId, fingerprint);
    if (added === "exists") {
      throw new ApiError(409, "That certificate is registered already.", "/body/fingerprint");
    }
    if (added === "full") {
      throw badRequest(
        `At most ${MAX_CERTFPS} certificates: remove one no longer used.`,
        "/body/fingerprint",
      );
    }
    const made = (await store.certfp.list(userId)).find((x) => x.fingerprint === fingerprint)!;
    return c.json(certfpJson(made), 201);
  });

  bind(app, "removeCertfp", requireUser, async (c) => {
    const fingerprint = validate(
      API.removeCertfp.params.shape.fingerprint,
      c.req.param("fingerprint"),
      "/params/fingerprint",
    );
    const userId = currentUser(c).id;
    if (!(await store.certfp.remove(userId, fingerprint))) throw notFound("No such certificate.");
    // The IRC clients logged in with it end now, on every node.
    await deps.revocations?.revoke({ userId, kind: "certificate", fingerprint });
    return c.json({});
  });

  bind(app, "runBouncerServ", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("runBouncerServ"), { required: true });
    const lines = await runService({
      deps,
      user: currentUser(c),
      network: body.connection_id ?? "",
      passwordGiven: await passwordRecent(c, deps),
    }, body.command);
    return c.json({ lines });
  });

  return app;
}
