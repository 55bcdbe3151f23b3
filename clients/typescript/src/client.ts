import { ColloquyError } from "./errors.js";
import type { Citation, Usage } from "./events.js";
import { TurnStream, type TurnStreamOptions } from "./stream.js";

export interface ClientOptions {
  /** Where Colloquy answers, e.g. `http://localhost:8080`; empty for the page's own origin. */
  baseUrl?: string;
  /** A tenant API key (`ck_…`), a JWT, or a widget's public key: sent as `Authorization: Bearer`. */
  credential?: string;
  /** With a tenant key: act for this end user of the tenant (`X-User-Id`). */
  userId?: string;
  /** Another fetch, e.g. one that adds headers or records calls. */
  fetch?: typeof fetch;
}

export interface SessionCreated {
  session_id: string;
  status: string;
  created_at: string;
}

export interface SessionSummaryRow {
  session_id: string;
  status: "open" | "closed" | string;
  title: string | null;
  created_at: string;
  last_activity_at: string;
  closed_at: string | null;
  close_reason: string | null;
  turn_count: number;
  usage: Usage;
}

export interface SessionPage {
  sessions: SessionSummaryRow[];
  next_cursor: string | null;
}

export interface Message {
  message_id: string;
  role: "user" | "assistant" | string;
  content: string;
  turn_id: string;
  created_at: string;
  run_id?: string;
  model?: string;
  citations: Citation[];
}

export interface Session {
  session_id: string;
  status: string;
  title: string | null;
  persona: string | null;
  created_at: string;
  updated_at: string;
  running_turn_id: string | null;
  close_reason: string | null;
  metadata: Record<string, unknown> | null;
  messages: Message[];
  narrative_state: Record<string, unknown> | null;
  summary?: Record<string, unknown>;
}

export interface JournalEntry {
  sequence_nr: number;
  written_at: string;
  type: string;
  event: Record<string, unknown>;
}

export interface Journal {
  session_id: string;
  events: JournalEntry[];
  last_sequence_nr: number;
  /** The session as it was after the last event read. */
  state: Record<string, unknown>;
}

export interface KnowledgeDocument {
  id: string;
  filename: string;
  version: number;
  status: "processing" | "ready" | "failed" | string;
  chunk_count: number;
  ingested_at: string;
}

/** A cited passage: the chunk of a document that a citation names, with its text. */
export interface Passage {
  document_id: string;
  filename: string;
  version: number;
  section: string;
  chunk_index: number;
  element_type: string;
  /** The document's own Markdown: render it as untrusted content. */
  text: string;
}

export interface DocumentAccepted {
  document_id: string;
  filename: string;
  version: number;
  status: string;
  message: string;
}

export interface DocumentStatus {
  document_id: string;
  filename: string;
  version: number;
  status: string;
  active: boolean;
  chunk_count: number;
  error_code?: string | null;
  error_message?: string | null;
}

export interface TurnOptions extends TurnStreamOptions {
  /** Models to fan out to, each in a run of its own; default: the tenant's default model. */
  models?: string[];
  /** The turn's id; one is made when absent. Sending it again never starts a second turn. */
  turnId?: string;
  idempotencyKey?: string;
  /**
   * When the signal aborts, also ask the server to stop the turn (default true): an abort is the
   * user's "stop". False only stops listening; the turn goes on and can be joined again.
   */
  cancelOnAbort?: boolean;
}

export interface UploadOptions {
  /** Called as the upload goes: bytes sent and the total (browsers only; Node reports the end). */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

/** Colloquy's canonical API: sessions, streamed turns, the journal, and knowledge. */
export class ColloquyClient {
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;

  constructor(private readonly options: ClientOptions = {}) {
    this.#baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  // ---- sessions ----

  createSession(body: { session_id?: string; persona?: string; metadata?: Record<string, unknown> } = {}):
    Promise<SessionCreated> {
    return this.json("POST", "/v1/sessions", body);
  }

  /** A page of sessions, most recently active first; `q` keeps those whose title contains it (any case). */
  listSessions(query: { status?: "open" | "closed"; q?: string; limit?: number; cursor?: string } = {}):
    Promise<SessionPage> {
    const params = new URLSearchParams();
    if (query.status) params.set("status", query.status);
    if (query.q) params.set("q", query.q);
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    if (query.cursor) params.set("cursor", query.cursor);
    const search = params.size > 0 ? `?${params}` : "";
    return this.json("GET", `/v1/sessions${search}`);
  }

  getSession(sessionId: string): Promise<Session> {
    return this.json("GET", `/v1/sessions/${encodeURIComponent(sessionId)}`);
  }

  renameSession(sessionId: string, title: string): Promise<Session> {
    return this.json("PATCH", `/v1/sessions/${encodeURIComponent(sessionId)}`, { title });
  }

  closeSession(sessionId: string): Promise<Record<string, unknown>> {
    return this.json("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/close`, {});
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.request("DELETE", `/v1/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** The journal and the state rebuilt from it; with `until`, the state at that sequence number. */
  journal(sessionId: string, until?: number): Promise<Journal> {
    const query = until === undefined ? "" : `?until=${until}`;
    return this.json("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/journal${query}`);
  }

  // ---- turns ----

  /**
   * Starts a turn and streams its events. A dropped connection is resumed after the last event
   * received; before any event arrived, the same turn id is sent again, which the server answers
   * with that turn rather than a new one.
   */
  startTurn(sessionId: string, message: string, options: TurnOptions = {}): TurnStream {
    const turnId = options.turnId ?? crypto.randomUUID();
    const body = JSON.stringify({
      message,
      turn_id: turnId,
      ...(options.idempotencyKey ? { idempotency_key: options.idempotencyKey } : {}),
      ...(options.models ? { models: options.models } : {}),
    });
    this.cancelOnAbort(sessionId, turnId, options);
    return new TurnStream((lastEventId, signal) => lastEventId === undefined
      ? this.send("POST", this.turnsPath(sessionId), body, { Accept: "text/event-stream" }, signal)
      : this.eventsAfter(sessionId, turnId, lastEventId, signal), options);
  }

  /** Joins a running or finished turn's stream, after `lastEventId` when given. */
  joinTurn(sessionId: string, turnId: string, options: TurnStreamOptions & { lastEventId?: number } = {}):
    TurnStream {
    return new TurnStream((lastEventId, signal) =>
      this.eventsAfter(sessionId, turnId, lastEventId ?? options.lastEventId, signal), options);
  }

  /** Stops a running turn now; its stream ends with `turn.cancelled`. */
  async cancelTurn(sessionId: string, turnId: string): Promise<void> {
    await this.request("POST", `${this.turnsPath(sessionId)}/${encodeURIComponent(turnId)}/cancel`);
  }

  // ---- knowledge ----

  /** Uploads a document (PDF, DOCX, HTML, Markdown, TXT, CSV); ingestion goes on in the background. */
  uploadDocument(file: Blob, filename: string, options: UploadOptions = {}): Promise<DocumentAccepted> {
    const form = new FormData();
    form.append("file", file, filename);
    if (typeof XMLHttpRequest !== "undefined" && this.options.fetch === undefined) {
      return this.uploadWithProgress(form, file.size, options);
    }
    return this.send("POST", "/v1/knowledge/ingest", form, {}, options.signal).then(async (response) => {
      if (!response.ok) throw await ColloquyError.from(response);
      options.onProgress?.(file.size, file.size);
      return (await response.json()) as DocumentAccepted;
    });
  }

  documentStatus(documentId: string): Promise<DocumentStatus> {
    return this.json("GET", `/v1/knowledge/${encodeURIComponent(documentId)}/status`);
  }

  async listDocuments(): Promise<KnowledgeDocument[]> {
    const body = await this.json<{ documents: KnowledgeDocument[] }>("GET", "/v1/knowledge/list");
    return body.documents;
  }

  /** The passage a citation names (its `document_id` and `chunk_index`), with its text. */
  passage(documentId: string, chunkIndex: number): Promise<Passage> {
    return this.json("GET", `/v1/knowledge/${encodeURIComponent(documentId)}/chunks/${chunkIndex}`);
  }

  async deleteDocument(documentId: string): Promise<void> {
    await this.request("DELETE", `/v1/knowledge/${encodeURIComponent(documentId)}`);
  }

  /** The caller's tenant configuration. */
  config(): Promise<Record<string, unknown>> {
    return this.json("GET", "/v1/config");
  }

  // ---- transport ----

  private turnsPath(sessionId: string): string {
    return `/v1/sessions/${encodeURIComponent(sessionId)}/turns`;
  }

  private eventsAfter(sessionId: string, turnId: string, lastEventId: number | undefined, signal: AbortSignal):
    Promise<Response> {
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["Last-Event-ID"] = String(lastEventId);
    return this.send("GET", `${this.turnsPath(sessionId)}/${encodeURIComponent(turnId)}/events`, undefined,
      headers, signal);
  }

  private cancelOnAbort(sessionId: string, turnId: string, options: TurnOptions): void {
    if (options.signal && options.cancelOnAbort !== false) {
      options.signal.addEventListener("abort", () => {
        this.cancelTurn(sessionId, turnId).catch(() => undefined);
      }, { once: true });
    }
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    return (await response.json()) as T;
  }

  private async request(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? {} : { "Content-Type": "application/json" });
    if (!response.ok) {
      throw await ColloquyError.from(response);
    }
    return response;
  }

  private send(method: string, path: string, body: BodyInit | undefined, headers: Record<string, string>,
    signal?: AbortSignal): Promise<Response> {
    const all: Record<string, string> = { ...this.credentialHeaders(), ...headers };
    if (typeof body === "string" && !("Content-Type" in all)) all["Content-Type"] = "application/json";
    return this.#fetch(this.#baseUrl + path, { method, headers: all, body, signal: signal ?? null });
  }

  private credentialHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.options.credential) headers.Authorization = `Bearer ${this.options.credential}`;
    if (this.options.userId) headers["X-User-Id"] = this.options.userId;
    return headers;
  }

  /** fetch cannot report upload progress; XMLHttpRequest can. */
  private uploadWithProgress(form: FormData, total: number, options: UploadOptions): Promise<DocumentAccepted> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", `${this.#baseUrl}/v1/knowledge/ingest`);
      for (const [name, value] of Object.entries(this.credentialHeaders())) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => options.onProgress?.(event.loaded, event.lengthComputable ? event.total : total);
      xhr.onload = () => {
        const response = new Response(xhr.responseText, {
          status: xhr.status,
          headers: { "Content-Type": xhr.getResponseHeader("Content-Type") ?? "application/json" },
        });
        if (xhr.status >= 200 && xhr.status < 300) {
          resolve(response.json() as Promise<DocumentAccepted>);
        } else {
          ColloquyError.from(response).then(reject, reject);
        }
      };
      xhr.onerror = () => reject(new TypeError("The upload failed: network error"));
      xhr.onabort = () => reject(options.signal?.reason ?? new DOMException("Aborted", "AbortError"));
      options.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
      xhr.send(form);
    });
  }
}
