/**
 * irc:// links: this browser opens them in Parley once asked to (the server's /register?uri=...
 * then leads on), and a link the server could not place fills the forms.
 */
import { at } from "./base.ts";

/** The address the browser opens for a link, `%s` standing for the link. */
const HANDLER_PATH = "/register?uri=%s";

/** Whether this browser can be asked to open irc:// links here. */
export function canHandleLinks(): boolean {
  return typeof navigator !== "undefined" && "registerProtocolHandler" in navigator;
}

/** Asks the browser to open irc:// and ircs:// links in Parley (it may ask the user first). */
export function handleIrcLinks(): void {
  const target = new URL(at(HANDLER_PATH.replace("%s", "")), location.href).href + "%s";
  for (const scheme of ["irc", "ircs"]) navigator.registerProtocolHandler(scheme, target);
}

/** A link's server (as a URL without the path, for the connection form) and conversation. */
export function linkParts(uri: string): { url: string; conversation: string } | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if ((url.protocol !== "irc:" && url.protocol !== "ircs:") || !url.hostname) return undefined;
  let conversation = "";
  try {
    conversation = decodeURIComponent(url.pathname.split("/")[1] ?? "").split(/\s/)[0];
  } catch {
    // why: an undecodable path names no conversation
  }
  const server = `${url.protocol}//${url.host}${url.search}`;
  return { url: server, conversation };
}
