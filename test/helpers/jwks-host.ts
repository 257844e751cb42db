/** What a test identity provider answers on one path. */
export interface JwksReply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Waits this long before answering. */
  delayMs?: number;
}

/**
 * A JWKS endpoint served by the test itself, reachable from the app under test: a real HTTP server on
 * 127.0.0.1 on Node, an intercepted outbound `fetch` inside workerd.
 */
export interface JwksHost {
  url(path: string): string;
  serve(path: string, reply: JwksReply): void;
  hits(path: string): number;
}

/** Shared bookkeeping of both implementations. */
export class JwksRoutes {
  private readonly replies = new Map<string, JwksReply>();
  private readonly counts = new Map<string, number>();

  serve(path: string, reply: JwksReply): void {
    this.replies.set(path, reply);
  }

  hits(path: string): number {
    return this.counts.get(path) ?? 0;
  }

  /** Counts the hit and returns the reply for `path` (404 when nothing is served there). */
  take(path: string): JwksReply {
    this.counts.set(path, this.hits(path) + 1);
    return this.replies.get(path) ?? { status: 404, body: 'not found' };
  }
}
