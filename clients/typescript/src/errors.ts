/**
 * An answer of Colloquy other than 2xx, with the error body of its API:
 * `{"error": {"code", "message", "trace_id"}}`.
 */
export class ColloquyError extends Error {
  override readonly name = "ColloquyError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly traceId: string | undefined,
    /** Seconds to wait before trying again, from `Retry-After` (429, 503). */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }

  /** Reads the error body of a failed response; a body that is not Colloquy's still gives a code. */
  static async from(response: Response): Promise<ColloquyError> {
    const retryAfter = Number(response.headers.get("Retry-After"));
    const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 && response.headers.has("Retry-After")
      ? retryAfter
      : undefined;
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const error = (body as { error?: { code?: unknown; message?: unknown; trace_id?: unknown } } | undefined)?.error;
    if (error && typeof error.code === "string") {
      return new ColloquyError(response.status, error.code, String(error.message ?? error.code),
        typeof error.trace_id === "string" ? error.trace_id : undefined, retryAfterSeconds);
    }
    return new ColloquyError(response.status, `HTTP_${response.status}`,
      `${response.status} ${response.statusText}`.trim(), undefined, retryAfterSeconds);
  }

  /** Worth trying again: the server is busy or briefly unable, not refusing the request itself. */
  get retryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status === 502 || this.status === 503
      || this.status === 504;
  }
}
