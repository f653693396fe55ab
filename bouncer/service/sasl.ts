/**
 * `sasl status|set-plain|reset`: how a network logs in to its IRC server, kept in its URL as the
 * web form keeps it (`sasl=plain` with the login in the URL's user and password), changed through
 * the connection service (it reconnects with the new login).
 */
import { parseIrcUrl } from "../../irc/url.ts";
import { parseArgs } from "./args.ts";
import { networkOf } from "./network.ts";
import { register, saved, UsageError } from "./table.ts";
import { t } from "./words.ts";

register(
  {
    name: "sasl status",
    usage: "[-network <network>]",
    description: "Shows how a network logs in to its server",
    async run(call, args) {
      const p = parseArgs(args, ["network"]);
      const record = await networkOf(call, p.flags.get("network"));
      const url = parseIrcUrl(record.url);
      const json = await call.deps.connections.json(record);
      const state = json.info.authenticated ? t("logged in") : t("not logged in");
      if (url.sasl === "plain") {
        return [t("{id}: SASL PLAIN as {user} ({state}).", {
          id: record.connectionId,
          user: url.user,
          state,
        })];
      }
      if (url.sasl === "external") {
        return [t("{id}: SASL EXTERNAL with the network's client certificate ({state}).", {
          id: record.connectionId,
          state,
        })];
      }
      return [t("{id}: SASL is off.", { id: record.connectionId })];
    },
  },
  {
    name: "sasl set-plain",
    usage: "[-network <network>] <username> <password>",
    description: "Logs a network in with SASL PLAIN",
    async run(call, args) {
      const p = parseArgs(args, ["network"]);
      if (p.positional.length !== 2) throw new UsageError(t("Give a username and a password."));
      const record = await networkOf(call, p.flags.get("network"));
      const [user, password] = p.positional;
      const url = new URL(record.url.trim());
      url.username = encodeURIComponent(user);
      url.password = encodeURIComponent(password);
      url.searchParams.set("sasl", "plain");
      return await saved(
        () =>
          call.deps.connections.update(call.user.id, record.connectionId, { url: url.href }, "/"),
        t("{id} logs in with SASL PLAIN as {user} now.", { id: record.connectionId, user }),
      );
    },
  },
  {
    name: "sasl reset",
    usage: "[-network <network>]",
    description: "Turns SASL off for a network",
    async run(call, args) {
      const p = parseArgs(args, ["network"]);
      const record = await networkOf(call, p.flags.get("network"));
      const url = new URL(record.url.trim());
      const sasl = url.searchParams.get("sasl")?.toLowerCase();
      if (!sasl || sasl === "none") return [t("{id}: SASL is off.", { id: record.connectionId })];
      url.searchParams.delete("sasl");
      if (sasl === "plain") {
        // A PLAIN login's password is SASL's: it goes with it. The connection service keeps a
        // stored password that a change leaves out (no client is ever shown it to send back), so
        // it is taken out of the stored URL first.
        url.username = "";
        url.password = "";
        await call.deps.store.connections.update(record.id, { url: url.href });
      }
      return await saved(
        () =>
          call.deps.connections.update(call.user.id, record.connectionId, { url: url.href }, "/"),
        t("{id}: SASL is off.", { id: record.connectionId }),
      );
    },
  },
);
