/**
 * Two Parley nodes on one PostgreSQL and one ngircd, each with the IRC listener: what ends an IRC
 * client's session wherever it is attached. Revoking an app token ends the clients logged in with
 * it; a new password (set on the account page, or through an invite link) ends those that logged
 * in with the old one, and not those of an app token; a client managing networks acts as the user
 * is now (a demoted admin is held to the connection limit; a deleted user's client is ended);
 * a suspension asked of one node ends the user's clients and stops their connection on the node
 * that runs them, and the return starts it there again; `parley user delete` with another secret
 * than the nodes' says no node heard it and deletes nothing; and the sessions a node served for a node that died end, so the user's clients count
 * no more. On one node (SQLite, the app in process) the same revocations end sessions without a
 * cluster; and on PostgreSQL a node that listens again after its session was lost checks its
 * sessions, so a revocation it did not hear still ends them.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { BouncerClient } from "../support/bouncer_client.ts";
import { EMAIL, PASSWORD as ADMIN_PASSWORD, setupBouncer } from "../support/bouncer.ts";
import { parley } from "../support/cli.ts";
import { clusterEnv, explainNodes, ownerWithBob } from "../support/cluster.ts";
import type { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { freePort } from "../support/ports.ts";
import { poll } from "../support/poll.ts";
import { endListening, startPostgres } from "../support/postgres.ts";
import { startServer, type TestServer } from "../support/server.ts";
import postgres from "postgres";

const SECRET = "one secret for both nodes";
const OWNER = "owner@example.org";
const PASSWORD = "correct horse battery";
const NETWORKS = ["soju.im/bouncer-networks"];

/** Whether the client still answers (its session is alive). */
async function alive(c: BouncerClient, token: string): Promise<void> {
  await c.send(`PING :${token}`);
  await c.waitFor((l) => l.command === "PONG" && l.params.includes(token));
}

/** Waits for the ERROR that ends the session, then for the socket's end. */
async function ended(c: BouncerClient, why: () => string): Promise<string> {
  try {
    const error = await c.waitFor((l) => l.command === "ERROR");
    await c.waitClosed();
    return error.params[0];
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${why()}`);
  }
}

Deno.test("bouncer on two nodes: revoked credentials and deleted users end sessions everywhere", async (t) => {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const url = await pg.database();
  const env = clusterEnv(url, SECRET);
  const nodes: TestServer[] = [];
  const clients: BouncerClient[] = [];
  const cliHome = await Deno.makeTempDir({ prefix: "parley-cli-" });
  let bob: RawIrcClient | undefined;
  const why = explainNodes(nodes, irc);
  const keep = (c: BouncerClient) => (clients.push(c), c);
  try {
    const portA = freePort();
    const a = await startServer({ env: { ...env, PARLEY_IRC_LISTEN: `irc://127.0.0.1:${portA}` } });
    nodes.push(a);
    const onA = new ApiClient(a.url);
    await onA.register(OWNER, PASSWORD);
    bob = await ownerWithBob(onA, irc, why);
    const portB = freePort();
    const b = await startServer({ env: { ...env, PARLEY_IRC_LISTEN: `irc://127.0.0.1:${portB}` } });
    nodes.push(b);
    await poll(
      "both listeners are open",
      () => nodes.every((n) => n.output().includes("irc listening")),
    );
    const onB = new ApiClient(b.url);
    await onB.login(OWNER, PASSWORD);
    const net = `${OWNER}/irc-localhost`;
    const token = async (name: string) => {
      const made = await onA.post("/api/tokens", { name });
      assertEquals(made.status, 201, JSON.stringify(made.body));
      return made.body as { id: string; token: string };
    };
    const phone = await token("phone");
    const laptop = await token("laptop");
    let kept: BouncerClient;

    await t.step("a revoked app token ends its clients on both nodes, and no other", async () => {
      // Handed over by node b to node a (which runs the user), and one managing networks on a.
      const far = keep(await BouncerClient.attach(portB, `${net}@phone`, phone.token));
      const manager = keep(await BouncerClient.attach(portA, OWNER, phone.token, NETWORKS));
      kept = keep(await BouncerClient.attach(portB, `${net}@laptop`, laptop.token));
      await alive(far, "before");
      const revoked = await onA.delete(`/api/tokens/${phone.id}`);
      assertEquals(revoked.status, 200, JSON.stringify(revoked.body));
      assert((await ended(far, why)).includes("revoked"));
      assert((await ended(manager, why)).includes("revoked"));
      await alive(kept, "after the revocation");
      const again = await BouncerClient.tryAttach(portA, `${net}@phone`, phone.token);
      assert(!again.ok, again.line);
    });

    await t.step(
      "a new password ends the clients of the old one, not the app token's",
      async () => {
        const near = keep(await BouncerClient.attach(portA, `${net}@pw`, PASSWORD));
        const manager = keep(await BouncerClient.attach(portB, OWNER, PASSWORD, NETWORKS));
        const changed = await onB.post(`/api/user/${OWNER}`, {
          password: "a new horse battery",
          current_password: PASSWORD,
        });
        assertEquals(changed.status, 200, JSON.stringify(changed.body));
        assert((await ended(near, why)).includes("password"));
        assert((await ended(manager, why)).includes("password"));
        await alive(kept, "after the password change");
      },
    );

    await t.step("a password reset by invite link ends the clients of the old one", async () => {
      const near = keep(await BouncerClient.attach(portB, `${net}@pw`, "a new horse battery"));
      const invite = await onB.post(`/api/user/${OWNER}/invite`);
      assertEquals(invite.status, 200, JSON.stringify(invite.body));
      const params = new URL(invite.body.url).searchParams;
      const reset = await new ApiClient(a.url).post("/api/user/register", {
        email: OWNER,
        password: PASSWORD,
        exp: params.get("exp"),
        token: params.get("token"),
      });
      assertEquals(reset.status, 200, JSON.stringify(reset.body));
      assert((await ended(near, why)).includes("password"));
      await alive(kept, "after the reset");
      await onA.login(OWNER, PASSWORD);
    });

    await t.step("a client managing networks acts as the user is now", async () => {
      const set = await onA.post("/api/settings", { max_connections_per_user: 1 });
      assertEquals(set.status, 200, JSON.stringify(set.body));
      const invite = await onA.post("/api/user/second@example.org/invite");
      const params = new URL(invite.body.url).searchParams;
      await new ApiClient(b.url).register("second@example.org", PASSWORD, {
        exp: params.get("exp")!,
        token: params.get("token")!,
      });
      const promoted = await onA.post("/api/user/second@example.org", { roles: ["admin"] });
      assertEquals(promoted.status, 200, JSON.stringify(promoted.body));
      const m = keep(
        await BouncerClient.attach(portB, "second@example.org", PASSWORD, NETWORKS),
      );
      const add = async (nick: string) => {
        const from = m.lines.length;
        await m.send(
          `BOUNCER ADDNETWORK host=irc.example.invalid;port=6667;tls=0;nickname=${nick}`,
        );
        return await m.waitFor((l) => l.command === "FAIL" || l.command === "BOUNCER", from);
      };
      // An admin: no limit.
      assertEquals((await add("first")).command, "BOUNCER");
      assertEquals((await add("second")).command, "BOUNCER");
      const demoted = await onA.post("/api/user/second@example.org", { roles: [] });
      assertEquals(demoted.status, 200, JSON.stringify(demoted.body));
      const refused = await add("third");
      assertEquals(refused.command, "FAIL", refused.raw);
      assert(refused.raw.includes("the most this server allows"), refused.raw);

      const deleted = await onA.delete("/api/user/second@example.org");
      assertEquals(deleted.status, 200, JSON.stringify(deleted.body));
      assert((await ended(m, why)).includes("deleted"));
    });

    await t.step("a suspension and the return reach the node that runs the user", async () => {
      const email = "fourth@example.org";
      const invite = await onA.post(`/api/user/${email}/invite`);
      const params = new URL(invite.body.url).searchParams;
      const fourth = new ApiClient(b.url);
      const uid = (await fourth.register(email, PASSWORD, {
        exp: params.get("exp")!,
        token: params.get("token")!,
      })).uid;
      // An admin, so that the connection may reach the loopback server.
      assertEquals((await onA.post(`/api/user/${email}`, { roles: ["admin"] })).status, 200);
      const made = await fourth.post("/api/connections", { url: `${irc.url}?nick=fourth` });
      assertEquals(made.status, 200, JSON.stringify(made.body));
      await poll("fourth is on IRC", () => bob!.online("fourth")).catch((err) => {
        throw new Error(`${err.message}\n${why()}`);
      });
      const attached = keep(
        await BouncerClient.attach(portA, `${email}/${made.body.connection_id}`, PASSWORD),
      );
      // Asked of the node that does not run the user, so that it is carried to the one that does.
      const runs = (n: TestServer) => n.output().includes(`uid=${uid} nick=fourth`);
      const other = runs(a) ? new ApiClient(b.url) : onA;
      if (other !== onA) await other.login(OWNER, PASSWORD);
      const suspended = await other.post(`/api/user/${email}`, { suspended: true });
      assertEquals(suspended.status, 200, JSON.stringify(suspended.body));
      assert((await ended(attached, why)).includes("suspended"));
      await poll("fourth left IRC", async () => !(await bob!.online("fourth")));
      const tried = await BouncerClient.tryAttach(portB, email, PASSWORD);
      keep(tried.client);
      assert(tried.line.includes("This account is suspended"), tried.line);
      const back = await other.post(`/api/user/${email}`, { suspended: false });
      assertEquals(back.status, 200, JSON.stringify(back.body));
      await poll("fourth is back on IRC", () => bob!.online("fourth")).catch((err) => {
        throw new Error(`${err.message}\n${why()}`);
      });

      // From the shell, signed with the nodes' secret: the same, through the node that runs them.
      const cli = (sub: string) =>
        parley(["user", sub, email], {
          env: { PARLEY_HOME: cliHome, PARLEY_DATABASE_URL: url, PARLEY_SECRET: SECRET },
        });
      const again = keep(
        await BouncerClient.attach(portB, `${email}/${made.body.connection_id}`, PASSWORD),
      );
      const off = await cli("suspend");
      assertEquals(off.code, 0, off.stderr);
      assert((await ended(again, why)).includes("suspended"));
      await poll("fourth left IRC again", async () => !(await bob!.online("fourth")));
      const on = await cli("resume");
      assertEquals(on.code, 0, on.stderr);
      await poll("fourth is on IRC again", () => bob!.online("fourth")).catch((err) => {
        throw new Error(`${err.message}\n${why()}`);
      });
      const back2 = await BouncerClient.tryAttach(
        portA,
        `${email}/${made.body.connection_id}`,
        PASSWORD,
      );
      keep(back2.client);
      assert(back2.ok, back2.line);
    });

    await t.step(
      "`parley user`: set-password ends sessions; delete with another secret, nothing",
      async () => {
        const added = await parley(["user", "add", "third@example.org"], {
          env: { PARLEY_HOME: cliHome, PARLEY_DATABASE_URL: url, PARLEY_SECRET: SECRET },
          stdin: `${PASSWORD}\n`,
        });
        assertEquals(added.code, 0, added.stderr);
        const old = keep(
          await BouncerClient.attach(portB, "third@example.org", PASSWORD, NETWORKS),
        );
        const set = await parley(["user", "set-password", "third@example.org"], {
          env: { PARLEY_HOME: cliHome, PARLEY_DATABASE_URL: url, PARLEY_SECRET: SECRET },
          stdin: "the third new password\n",
        });
        assertEquals(set.code, 0, set.stderr);
        assert((await ended(old, why)).includes("password"));
        const m = keep(
          await BouncerClient.attach(
            portA,
            "third@example.org",
            "the third new password",
            NETWORKS,
          ),
        );
        const wrong = await parley(["user", "delete", "third@example.org"], {
          env: {
            PARLEY_HOME: cliHome,
            PARLEY_DATABASE_URL: url,
            PARLEY_SECRET: "a secret that is not the nodes'",
          },
        });
        // Refused before anything is sent: the database keeps the nodes' secret's fingerprint.
        assertEquals(wrong.code, 2, wrong.stdout);
        assert(
          wrong.stderr.includes("PARLEY_SECRET is not the secret of this database's nodes"),
          wrong.stderr,
        );
        await alive(m, "after the refused delete");
        await new ApiClient(a.url).login("third@example.org", "the third new password");
        const right = await parley(["user", "delete", "third@example.org"], {
          env: { PARLEY_HOME: cliHome, PARLEY_DATABASE_URL: url, PARLEY_SECRET: SECRET },
        });
        assertEquals(right.code, 0, right.stderr);
        assert((await ended(m, why)).includes("deleted"));
      },
    );

    await t.step("the sessions served for a node that died end", async () => {
      for (const c of clients) c.close();
      // Node b carries every client it can to node a, which runs the user, up to the cap.
      let refused = "";
      for (let i = 0; i < 25 && !refused; i++) {
        const tried = await BouncerClient.tryAttach(portB, `${net}@c${i}`, laptop.token);
        keep(tried.client);
        if (!tried.ok) refused = tried.line;
      }
      assert(refused.includes("Too many clients"), refused || "never refused");
      await b.kill();
      await poll("a client attaches to node a again", async () => {
        const tried = await BouncerClient.tryAttach(portA, `${net}@again`, laptop.token);
        tried.client.close();
        return tried.ok;
      }, 60_000).catch((err) => {
        throw new Error(`${err.message}\n${why()}`);
      });
    });
  } finally {
    for (const c of clients) c.close();
    await bob?.close();
    for (const n of nodes) await n.close();
    await irc.close();
    await pg.close();
    await Deno.remove(cliHome, { recursive: true });
  }
});

Deno.test("bouncer on one node: revoking a token or a new password ends its sessions", async () => {
  const s = await setupBouncer();
  const clients: BouncerClient[] = [];
  try {
    const made = await s.api.post("/api/tokens", { name: "phone" });
    assertEquals(made.status, 201, JSON.stringify(made.body));
    const phone = made.body as { id: string; token: string };
    const byToken = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@phone`, phone.token);
    const byPassword = await BouncerClient.attach(s.port, `${EMAIL}/${s.cid}@pw`, ADMIN_PASSWORD);
    clients.push(byToken, byPassword);
    const why = () => "";
    assertEquals((await s.api.delete(`/api/tokens/${phone.id}`)).status, 200);
    assert((await ended(byToken, why)).includes("revoked"));
    await alive(byPassword, "after the revocation");
    const changed = await s.api.post(`/api/user/${EMAIL}`, {
      password: "a new horse battery",
      current_password: ADMIN_PASSWORD,
    });
    assertEquals(changed.status, 200, JSON.stringify(changed.body));
    assert((await ended(byPassword, why)).includes("password"));
  } finally {
    for (const c of clients) c.close();
    await s.close();
  }
});

Deno.test("bouncer on PostgreSQL: a revocation sent while a node was not listening still ends the session", async () => {
  const pg = await startPostgres();
  const irc = await startIrcServer();
  const url = await pg.database();
  const nodes: TestServer[] = [];
  const why = explainNodes(nodes, irc);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let bob: RawIrcClient | undefined;
  let client: BouncerClient | undefined;
  try {
    const port = freePort();
    const node = await startServer({
      env: { ...clusterEnv(url, SECRET), PARLEY_IRC_LISTEN: `irc://127.0.0.1:${port}` },
    });
    nodes.push(node);
    const api = new ApiClient(node.url);
    await api.register(OWNER, PASSWORD);
    bob = await ownerWithBob(api, irc, why);
    const made = await api.post("/api/tokens", { name: "phone" });
    assertEquals(made.status, 201, JSON.stringify(made.body));
    client = await BouncerClient.attach(
      port,
      `${OWNER}/irc-localhost@phone`,
      (made.body as { token: string }).token,
    );
    await alive(client, "before");
    // Revoked where this node did not hear it (another node, its message sent while this node's
    // listening session was down): the token is gone from the database, and nothing was said.
    await sql`DELETE FROM app_tokens`;
    await alive(client, "nothing heard");
    // The session holding the LISTENs ends, as at a restart of PostgreSQL; listening again, the
    // node checks every session against the database.
    await endListening(sql);
    assert((await ended(client, why)).includes("no longer valid"));
  } finally {
    client?.close();
    await bob?.close();
    await sql.end();
    for (const n of nodes) await n.close();
    await irc.close();
    await pg.close();
  }
});
