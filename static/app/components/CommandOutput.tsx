/** Readable answers to commands: /whois and /list as tables, /help with usage and descriptions. */
import { commandsFor } from "../../../protocol/command_table.ts";
import { t } from "../i18n.ts";
import { nickColor } from "../nick_color.ts";
import { showToast, user } from "../state.ts";
import { openConv } from "../view.ts";
import { joinChannel } from "../join.ts";
import { MessageText } from "./MessageText.tsx";

/** The fields of a WHOIS reply the client shows (the names Convos's API gives them). */
export interface Whois {
  nick: string;
  ident?: string;
  hostname?: string;
  real_name?: string;
  server?: string;
  server_info?: string;
  channels?: string;
  idle?: number | string;
  logon?: number | string;
  account?: string;
  away?: string;
  operator?: string;
  secure?: boolean;
}

/** "2 h 5 min" from seconds. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return t("{n} s", { n: s });
  if (s < 3600) return t("{n} min", { n: Math.floor(s / 60) });
  if (s < 86400) {
    return t("{h} h {m} min", { h: Math.floor(s / 3600), m: Math.floor(s % 3600 / 60) });
  }
  return t("{d} d {h} h", { d: Math.floor(s / 86400), h: Math.floor(s % 86400 / 3600) });
}

const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");

/** A WHOIS reply as a small table. */
export function WhoisTable(p: { w: Whois }) {
  const w = p.w;
  const rows: [string, string][] = [
    [t("Nick"), text(w.nick)],
    [t("User"), w.ident || w.hostname ? `${text(w.ident)}@${text(w.hostname)}` : ""],
    [t("Real name"), text(w.real_name)],
    [t("Server"), [text(w.server), text(w.server_info)].filter(Boolean).join(" · ")],
    [t("Channels"), text(w.channels)],
    [t("Idle"), w.idle !== undefined && !isNaN(Number(w.idle)) ? duration(Number(w.idle)) : ""],
    [t("Account"), text(w.account)],
    [t("Away"), text(w.away)],
    [t("Operator"), text(w.operator)],
    [t("Secure connection"), w.secure ? t("yes") : ""],
  ];
  return (
    <table class="cmd-table whois" aria-label={t("Whois {nick}", { nick: text(w.nick) })}>
      <tbody>
        {rows.filter(([, v]) => v).map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td style={k === t("Nick") ? { color: nickColor(v) } : undefined}>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where an invitation is to: the connection and the channel. */
export interface Invitation {
  cid: string;
  channel: string;
}

/** An invitation, with a button that joins the channel (a refusal shows as a toast). */
export function InviteLine(p: { text: string; to: Invitation }) {
  const { cid, channel } = p.to;
  return (
    <span class="text">
      {p.text}{" "}
      <button
        type="button"
        class="join-link"
        onClick={async () => {
          const refused = await joinChannel(cid, channel);
          if (refused) showToast(refused);
        }}
      >
        {t("Join {channel}", { channel })}
      </button>
    </span>
  );
}

/** One channel of a /list answer. */
export interface ListedChannel {
  name: string;
  users: number;
  topic?: string;
}

/** Joins a listed channel on the open conversation's connection; a refusal shows as a toast. */
async function join(channel: string): Promise<void> {
  const cid = openConv.value?.cid;
  if (cid === undefined) return;
  const refused = await joinChannel(cid, channel);
  if (refused) showToast(refused);
}

/** A /list answer as a table, most populated first; a click on a name joins it. */
export function ChannelTable(p: { channels: ListedChannel[] }) {
  const list = [...p.channels].sort((a, b) => b.users - a.users).slice(0, 200);
  if (!list.length) return <span class="text">{t("No channels listed.")}</span>;
  return (
    <>
      {p.channels.length > list.length && (
        <span class="text">
          {t("The {shown} most populated of {n} channels; /list /text/ searches them all.", {
            shown: list.length,
            n: p.channels.length.toLocaleString(),
          })}
        </span>
      )}
      <table class="cmd-table list" aria-label={t("Channels")}>
        <thead>
          <tr>
            <th scope="col">{t("Channel")}</th>
            <th scope="col" class="num">{t("Users")}</th>
            <th scope="col">{t("Topic")}</th>
          </tr>
        </thead>
        <tbody>
          {list.map((c) => (
            <tr key={c.name}>
              <td>
                <button
                  type="button"
                  class="join-link"
                  title={t("Join {channel}", { channel: text(c.name) })}
                  onClick={() => join(text(c.name))}
                >
                  {text(c.name)}
                </button>
              </td>
              <td class="num">{text(c.users)}</td>
              <td>
                <MessageText text={text(c.topic)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Each command a user with `roles` may run: its usage, its aliases and what it does. */
function commandHelp(roles: readonly string[]): [string, string[], string][] {
  return commandsFor(roles).map((c) => [
    c.usage,
    c.aliases.map((a) => "/" + a),
    // The table's English description is its key in the dictionaries.
    t(c.description),
  ]);
}

/** The /help answer as a table: the commands of the one table, admin ones only for admins. */
export function HelpTable() {
  return (
    <table class="cmd-table help" aria-label={t("Commands")}>
      <tbody>
        {commandHelp(user.value?.roles ?? []).map(([usage, aliases, what]) => (
          <tr key={usage}>
            <th scope="row">
              <code>{usage}</code>
              {aliases.map((a) => (
                <span key={a}>
                  {", "}
                  <code>{a}</code>
                </span>
              ))}
            </th>
            <td>{what}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
