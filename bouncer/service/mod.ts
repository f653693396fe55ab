/**
 * BouncerServ, the control service: `/msg BouncerServ <command>` from an attached IRC client
 * (irc.ts), `/bouncerserv <command>` in the web client (routes/bouncerserv.ts). Each group's module
 * registers its commands in the one table (table.ts).
 */
import "./network.ts";
import "./sasl.ts";
import "./certfp.ts";
import "./channel.ts";
import "./user.ts";
import "./server.ts";

export { runService } from "./table.ts";

/** The service's nick, as soju users type it. */
export const SERVICE_NICK = "BouncerServ";
