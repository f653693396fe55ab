/** CTCP answers now live in irc/protocol/ctcp.ts; this re-exports them. */
export { ctcpAnswer } from "../protocol/ctcp.ts";
