/**
 * `channel status`: a network's channels as stored; `channel update`: a channel's detachment and
 * its options (bouncer/detached.ts), soju's flags.
 */
import { changeDetach, parseDuration } from "../detached.ts";
import {
  type DetachState,
  REATTACH_ON,
  type ReattachOn,
  RELAY_DETACHED,
  type RelayDetached,
} from "../../protocol/detach.ts";
import { parseArgs } from "./args.ts";
import { networkOf } from "./network.ts";
import { register, UsageError } from "./table.ts";
import { t } from "./words.ts";

/** A mode flag's value: one of `modes`, or `default` (stored as ""). */
function mode<T extends string>(flag: string, value: string, modes: readonly T[]): T | "" {
  if (value === "default") return "";
  if (!(modes as readonly string[]).includes(value)) {
    throw new UsageError(
      t("-{flag} takes one of: {modes}.", { flag, modes: [...modes, "default"].join(", ") }),
    );
  }
  return value as T;
}

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
          state: c.detach.detached ? t("detached") : c.joined ? t("joined") : t("not joined"),
          unread: c.unread,
        })
      );
    },
  },
  {
    name: "channel update",
    usage:
      "<channel> [-network <network>] [-detached true|false] [-relay-detached message|highlight|none|default] [-reattach-on message|highlight|none|default] [-detach-after <duration>]",
    description: "Detaches or reattaches a channel, and sets its detached options",
    async run(call, args) {
      const p = parseArgs(args, [
        "network",
        "detached",
        "relay-detached",
        "reattach-on",
        "detach-after",
      ]);
      const [channel, ...rest] = p.positional;
      if (!channel || rest.length) throw new UsageError(t("Name one channel."));
      const change: Partial<DetachState> = {};
      const detached = p.flags.get("detached");
      if (detached !== undefined) {
        if (detached !== "true" && detached !== "false") {
          throw new UsageError(t("-detached takes true or false."));
        }
        change.detached = detached === "true";
      }
      const relay = p.flags.get("relay-detached");
      if (relay !== undefined) {
        change.relayDetached = mode<RelayDetached>("relay-detached", relay, RELAY_DETACHED);
      }
      const reattach = p.flags.get("reattach-on");
      if (reattach !== undefined) {
        change.reattachOn = mode<ReattachOn>("reattach-on", reattach, REATTACH_ON);
      }
      const after = p.flags.get("detach-after");
      if (after !== undefined) {
        const seconds = parseDuration(after);
        if (seconds === undefined) {
          throw new UsageError(t("-detach-after takes a duration such as 30s, 1h30m or 0."));
        }
        change.detachAfter = seconds;
      }
      if (!Object.keys(change).length) throw new UsageError(t("Give at least one flag to change."));
      const record = await networkOf(call, p.flags.get("network"));
      const state = await changeDetach(
        call.deps.store,
        call.user.id,
        record.connectionId,
        channel,
        change,
        call.deps.bus,
      );
      return [
        t(
          "{channel} is {state}; relay-detached {relay}, reattach-on {reattach}, detach-after {after}s.",
          {
            channel,
            state: state.detached ? t("detached") : t("attached"),
            relay: state.relayDetached || "default",
            reattach: state.reattachOn || "default",
            after: state.detachAfter,
          },
        ),
      ];
    },
  },
);
