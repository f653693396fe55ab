/**
 * `server notice`: an admin's announcement, published to every user as a `server_notice` event:
 * each open browser tab shows it, and the listener sends it to each attached IRC client (irc.ts).
 */
import { register, UsageError } from "./table.ts";
import { t } from "./words.ts";

/** The longest announcement: one IRC line's worth. */
const MAX_NOTICE = 400;

register({
  name: "server notice",
  usage: "<text>",
  description: "Sends a notice to every user's IRC clients and browser tabs",
  admin: true,
  async run(call, args) {
    const message = args.join(" ").trim();
    if (!message) throw new UsageError(t("Give the text to send."));
    if (message.length > MAX_NOTICE) {
      throw new UsageError(t("At most {n} characters.", { n: MAX_NOTICE }));
    }
    const users = await call.deps.store.users.list(undefined, 1_000_000);
    for (const u of users) {
      call.deps.bus.publish(u.id, { event: "server_notice", from: call.user.email, message });
    }
    return [
      users.length === 1 ? t("Sent to 1 user.") : t("Sent to {n} users.", { n: users.length }),
    ];
  },
});
