// The parts of the `web-push` npm package (3.6.7, which ships no types) that Parley uses.
export interface Keys {
  publicKey: string;
  privateKey: string;
}
export interface Subscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}
export interface RequestOptions {
  vapidDetails: { subject: string; publicKey: string; privateKey: string };
  TTL?: number;
  urgency?: "very-low" | "low" | "normal" | "high";
  topic?: string;
  contentEncoding?: "aes128gcm" | "aesgcm";
}
export interface RequestDetails {
  method: string;
  headers: Record<string, string | number>;
  body: Uint8Array | null;
  endpoint: string;
}
declare const webpush: {
  generateVAPIDKeys(): Keys;
  generateRequestDetails(
    sub: Subscription,
    payload: string | null,
    options: RequestOptions,
  ): RequestDetails;
};
export default webpush;
