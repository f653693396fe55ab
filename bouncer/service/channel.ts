/** `channel status`: a network's channels as stored; `channel update` is not available yet. */
import { parseArgs } from "./args.ts";
import { networkOf } from "./network.ts";
import { register } from "./table.ts";
import { t } from "./words.ts";

register(
  {
    name: "channel status",
    usage: "[-network <network>]",
    description: "Lists a network's channels",
    async run(call, args) {
      const p = parseArgs(args, ["network"]);
      const record = await networkOf(call, p.flags.get("network"));
      const all = await call.deps.store.conversations.listForConnection(record.id);
      const channels = all.filter((c) => /^[#&!+]/.test(c.name));
      if (!channels.length) return [t("{id} has no channels.", { id: record.connectionId })];
      return channels.map((c) =>
        t("{channel}: {state}, {unread} unread", {
          channel: c.name,
          state: c.joined ? t("joined") : t("not joined"),
          unread: c.unread,
        })
      );
    },
  },
  {
    name: "channel update",
    usage: "<channel> [-detached true|false]",
    description: "Changes a channel (not available yet)",
    run: () => Promise.resolve([t("Detached channels are not available yet.")]),
  },
);
