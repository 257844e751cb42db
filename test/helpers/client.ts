/** A runtime-neutral HTTP client for tests: the same suites run against Node (app.request) and workerd (SELF). */
export type Fetcher = (request: Request) => Promise<Response>;

export const ORIGIN = 'https://localhost:1280';
export const CLIENT = '/edge/client/v1';
export const MGMT = '/edge/management/v1';
export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'admin-password-for-tests';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  /** The body as received (binary bodies such as PNG). */
  bytes: Uint8Array;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Raw body (sent as is); `body` is sent as JSON. */
  raw?: string | Uint8Array;
  token?: string;
  headers?: Record<string, string>;
}

export class TestClient {
  constructor(private readonly fetcher: Fetcher) {}

  async request<T = any>(path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers = new Headers(options.headers);
    let body: BodyInit | undefined;
    if (options.raw !== undefined) body = options.raw as BodyInit;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    if (options.token) headers.set('zt-session', options.token);
    // Redirects are answers to look at, not to follow (the OIDC provider's flow is a chain of them).
    const response = await this.fetcher(new Request(ORIGIN + path, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' }));
    // Decode bytes ourselves: some bodies (PKCS#7 in base64) are text without a text content type.
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let parsed: any = text;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, headers: response.headers, body: parsed, text, bytes };
  }

  get<T = any>(path: string, token?: string) {
    return this.request<T>(path, { token });
  }

  /** Logs in with a password and returns the session token (throws when the login fails). */
  async login(username = ADMIN_USERNAME, password = ADMIN_PASSWORD, api = MGMT): Promise<string> {
    const reply = await this.request(`${api}/authenticate?method=password`, { body: { username, password } });
    if (reply.status !== 200) throw new Error(`login of ${username} failed: ${reply.status} ${reply.text}`);
    return reply.body.data.token as string;
  }
}
