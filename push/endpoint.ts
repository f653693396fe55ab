/**
 * Which push endpoints Parley may reach: a push endpoint is a URL the browser (so the user) names,
 * and Parley POSTs to it, so it gets the rules of link previews: public addresses only, checked
 * after DNS when subscribing and again at connect time when delivering.
 */
import { isPublicAddress } from "../embed/address.ts";
import {
  checkedAddresses,
  type ConnectOptions,
  FetchFailed,
  FetchRefused,
  resolveDns,
} from "../embed/safe_fetch.ts";

/** The address policy of push deliveries; tests add their CA or their own resolver. */
export type EndpointPolicy = Required<Pick<ConnectOptions, "allow" | "resolve">> & {
  caCerts?: string[];
};

/** The policy of an app: public addresses only unless the admin allows private ones. */
export function endpointPolicy(allowPrivate: boolean): EndpointPolicy {
  return { allow: allowPrivate ? () => true : isPublicAddress, resolve: resolveDns };
}

/** Why Parley would not deliver to `endpoint` now, or undefined when it would. */
export async function endpointProblem(
  endpoint: URL,
  policy: EndpointPolicy,
): Promise<string | undefined> {
  try {
    await checkedAddresses(endpoint.hostname, policy.allow, policy.resolve);
    return undefined;
  } catch (err) {
    if (err instanceof FetchRefused) {
      return `endpoint must be a push service on a public address: ${err.message}`;
    }
    if (err instanceof FetchFailed) return `endpoint's host could not be resolved.`;
    throw err;
  }
}
