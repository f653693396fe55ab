// deno-lint-ignore-file no-explicit-any -- test responses are read field by field
/** A small HTTP client for the API with a cookie jar, as a browser would keep one. */

/** One answer: status, parsed JSON body (or text), headers. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Sends one request: `fetch` over a socket, or an app's own handler in process. */
export type Fetcher = (req: Request) => Promise<Response>;

/** Talks to one Parley server as one user. */
export class ApiClient {
  #cookies = new Map<string, string>();
  constructor(readonly base: string, readonly fetcher: Fetcher = (req) => fetch(req)) {}

  /** The Cookie header this client sends. */
  get cookieHeader(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /**
   * Sends a request; `body` is sent as JSON unless it is FormData, URLSearchParams or undefined. A
   * string is sent as written, typed `application/json` unless `headers` name a type.
   */
  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...headers }, redirect: "manual" };
    if (this.#cookies.size) (init.headers as Record<string, string>).cookie = this.cookieHeader;
    const typed = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
    if (typeof body === "string") {
      init.body = body;
      if (!typed) (init.headers as Record<string, string>)["content-type"] = "application/json";
    } else if (body instanceof FormData || body instanceof URLSearchParams) {
      init.body = body;
    } else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const res = await this.fetcher(new Request(this.base + path, init));
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const [name, value] = pair.split(/=(.*)/s, 2);
      const expired = attrs.some((a) =>
        /max-age=0/i.test(a.trim()) || /expires=thu, 01 jan 1970/i.test(a.trim())
      );
      if (expired || value === "") this.#cookies.delete(name.trim());
      else this.#cookies.set(name.trim(), value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, undefined, headers);
  }
  post<T = any>(path: string, body: unknown = {}, headers?: Record<string, string>) {
    return this.request<T>("POST", path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("DELETE", path, undefined, headers);
  }

  /** Registers (and so logs in) a user; throws unless it succeeds. */
  async register(
    email: string,
    password = "correct horse battery",
    extra: Record<string, string> = {},
  ) {
    const res = await this.post("/api/user/register", { email, password, ...extra });
    if (res.status !== 200) {
      throw new Error(`register ${email}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body;
  }

  /** Logs in; throws unless it succeeds. */
  async login(email: string, password = "correct horse battery") {
    const res = await this.post("/api/user/login", { email, password });
    if (res.status !== 200) {
      throw new Error(`login ${email}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body;
  }
}

/**
 * Registers the first user (the admin) and a second user through an invite; returns both clients.
 * `server` is a daemon's URL, or an in-process app (tests/support/app.ts) that makes clients.
 */
export async function adminAndUser(
  server: string | { client(): ApiClient },
): Promise<{ admin: ApiClient; user: ApiClient }> {
  const make = () => typeof server === "string" ? new ApiClient(server) : server.client();
  const admin = make();
  await admin.register("admin@example.com");
  const invite = await admin.post("/api/user/user@example.com/invite");
  const params = new URL(invite.body.url).searchParams;
  const user = make();
  await user.register("user@example.com", "correct horse battery", {
    exp: params.get("exp")!,
    token: params.get("token")!,
  });
  return { admin, user };
}
