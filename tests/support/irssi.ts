/** irssi (from Debian) as the terminal tests drive it through the bouncer listener. */
import { PASSWORD } from "./bouncer.ts";

/** irssi's config: one server, SASL PLAIN with the bouncer's username, connected at start. */
export function irssiConfig(port: number, username: string): string {
  const q = (s: string) => JSON.stringify(s);
  return `servers = (
  {
    address = "127.0.0.1";
    chatnet = "parley";
    port = "${port}";
    use_tls = "no";
    autoconnect = "yes";
  }
);
chatnets = {
  parley = {
    type = "IRC";
    sasl_mechanism = "PLAIN";
    sasl_username = ${q(username)};
    sasl_password = ${q(PASSWORD)};
  };
};
settings = {
  core = { real_name = "Irssi"; user_name = "irssi"; nick = "irssi"; };
  "fe-common/core" = { autocreate_windows = "yes"; };
};
`;
}
