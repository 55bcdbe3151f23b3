import { EventSourceParserStream } from "eventsource-parser/stream";

/**
 * The support agent's API (seed 004 §5.2–5.3), as the widget calls it with the tenant's public key
 * (`X-API-Key`) for one visitor (`X-User-Id`): start a session, stream a message's answer, end the
 * session, and read its transcript back after a reload.
 */

/** What the answer's last frame says besides its text. */
export interface AnswerMetadata {
  message_id: string;
  confidence: number | null;
  sources: { chunk_id: string | null; document: string; section: string }[];
  escalation_required: boolean;
  escalation_reason: string | null;
  latency_ms: number;
}

export type AnswerFrame =
  | { delta: string; done: false }
  | { done: true; metadata: AnswerMetadata }
  | { done: true; error: { code: string; message: string } };

export interface TranscriptLine {
  role: "user" | "assistant" | string;
  content: string;
  created_at: string;
}

/** An answer the server refused, with its error code (`INVALID_SESSION`, `ORIGIN_NOT_ALLOWED`, …). */
export class SupportError extends Error {
  override readonly name = "SupportError";

  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }

  static async from(response: Response): Promise<SupportError> {
    try {
      const body = (await response.json()) as { error?: { code?: string; message?: string } };
      return new SupportError(response.status, body.error?.code ?? `HTTP_${response.status}`,
        body.error?.message ?? response.statusText);
    } catch {
      return new SupportError(response.status, `HTTP_${response.status}`, response.statusText);
    }
  }
}

/** How often and how patiently a dropped answer is taken up again after its last frame. */
const RESUME_ATTEMPTS = 5;
const RESUME_FIRST_DELAY_MS = 500;
const RESUME_MAX_DELAY_MS = 4000;

export class SupportApi {
  constructor(private readonly server: string, private readonly apiKey: string, private readonly visitorId: string) {}

  async start(): Promise<{ session_id: string; created_at: string }> {
    return (await this.call("POST", "/v1/session/start", {})).json();
  }

  /**
   * Ends the session; `keepalive` lets the request outlive the page when the visitor closes the
   * chat as they leave.
   */
  async end(sessionId: string): Promise<void> {
    await this.call("POST", `/v1/session/${encodeURIComponent(sessionId)}/end`, {}, { keepalive: true });
  }

  async transcript(sessionId: string): Promise<TranscriptLine[]> {
    const response = await this.call("GET", `/v1/session/${encodeURIComponent(sessionId)}/transcript`);
    return ((await response.json()) as { messages: TranscriptLine[] }).messages;
  }

  /**
   * The answer to `message` as it streams: `{delta}` frames, then one `{done: true}` frame. When the
   * connection drops after a frame, the same request is sent again with `Last-Event-ID`, which the
   * server answers with the rest of that answer, not a new one; before any frame nothing is resent,
   * since that would ask the question twice.
   */
  async *message(sessionId: string, message: string): AsyncGenerator<AnswerFrame> {
    const body = { session_id: sessionId, message, stream: true };
    let lastEventId: string | undefined;
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await this.call("POST", "/v1/chat/message", body,
          { headers: { Accept: "text/event-stream", ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) } });
        for await (const frame of frames(response.body as ReadableStream<BufferSource>)) {
          lastEventId = frame.id ?? lastEventId;
          const data = JSON.parse(frame.data) as AnswerFrame;
          yield data;
          if (data.done) return;
        }
        throw new TypeError("The answer's stream ended before its last frame");
      } catch (error) {
        const resumable = !(error instanceof SupportError) && !(error instanceof SyntaxError) && lastEventId !== undefined;
        if (!resumable || attempt + 1 >= RESUME_ATTEMPTS) throw error;
        await pause(Math.min(RESUME_MAX_DELAY_MS, RESUME_FIRST_DELAY_MS * 2 ** attempt));
      }
    }
  }

  private async call(method: string, path: string, body?: unknown,
    options: { headers?: Record<string, string>; keepalive?: boolean } = {}): Promise<Response> {
    const response = await fetch(this.server + path, {
      method,
      headers: {
        "X-API-Key": this.apiKey,
        "X-User-Id": this.visitorId,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...options.headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(options.keepalive ? { keepalive: true } : {}),
    });
    if (!response.ok) throw await SupportError.from(response);
    return response;
  }
}

async function* frames(body: ReadableStream<BufferSource>): AsyncGenerator<{ id: string | undefined; data: string }> {
  const reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { id: value.id, data: value.data };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
