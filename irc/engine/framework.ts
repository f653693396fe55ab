/** The part of irc-framework's Client that Parley uses, typed (the package ships no types). */
// @ts-types="./framework.d.ts"
import * as IrcFramework from "irc-framework";

/** An event payload from irc-framework: plain fields, read as needed. */
// deno-lint-ignore no-explicit-any
export type IrcEvent = Record<string, any>;

/** The irc-framework client, as far as Parley uses it. */
export interface IrcClient {
  connect(options: Record<string, unknown>): void;
  on(event: string, fn: (ev: IrcEvent) => void): void;
  off(event: string, fn: (ev: IrcEvent) => void): void;
  removeAllListeners(): void;
  raw(line: string): void;
  quit(message?: string): void;
  whois(nick: string, cb: (ev: IrcEvent) => void): void;
  user: { nick: string };
  network: {
    name: string;
    server: string;
    options: Record<string, unknown>;
    cap: { isEnabled(cap: string): boolean };
    supports(feature: string): unknown;
  };
  connection: { end(data?: string, hadError?: boolean): void; connected: boolean };
}

/** Creates a new irc-framework client. */
export function newIrcClient(): IrcClient {
  // deno-lint-ignore no-explicit-any
  const mod = IrcFramework as any;
  const Client = mod.Client ?? mod.default?.Client;
  return new Client() as IrcClient;
}
