import { decodeEvents, StreamProtocolError } from "./decode.js";
import { ColloquyError } from "./errors.js";
import { isTerminal, type TurnEvent } from "./events.js";

/** How a lost stream is taken up again. */
export interface RetryOptions {
  /** Reconnections in a row without a new event before giving up (default 10). */
  maxAttempts?: number;
  /** The first wait; it doubles on each attempt (default 500 ms). */
  initialDelayMs?: number;
  /** The longest wait between two attempts (default 5 s). */
  maxDelayMs?: number;
}

/** Told before each reconnection, so a UI can show it. */
export interface Reconnecting {
  attempt: number;
  delayMs: number;
  /** The id of the last event received: the stream resumes after it. */
  lastEventId: number | undefined;
  cause: unknown;
}

/** Opens the stream: from the start when `lastEventId` is undefined, else after that id. */
export type Connect = (lastEventId: number | undefined, signal: AbortSignal) => Promise<Response>;

export interface TurnStreamOptions {
  signal?: AbortSignal;
  retry?: RetryOptions;
  onReconnect?: (reconnecting: Reconnecting) => void;
}

/** A Retry-After longer than this is not waited for: the stream fails with the server's answer. */
const LONGEST_RETRY_AFTER_S = 30;

/**
 * One turn's events as an async iterator, ending after the terminal event (`turn.completed`,
 * `turn.failed` or `turn.cancelled`). When the connection drops before that, it reconnects with
 * backoff and resumes after the last event it received (`Last-Event-ID`), so nothing is missed or
 * repeated. Aborting the signal stops it at once with the signal's reason.
 */
export class TurnStream implements AsyncIterable<TurnEvent> {
  #lastEventId: number | undefined;
  #consumed = false;

  constructor(
    private readonly connect: Connect,
    private readonly options: TurnStreamOptions = {},
  ) {}

  /** The id of the last event delivered. */
  get lastEventId(): number | undefined {
    return this.#lastEventId;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TurnEvent> {
    if (this.#consumed) {
      throw new Error("A TurnStream can be iterated once");
    }
    this.#consumed = true;
    const signal = this.options.signal ?? new AbortController().signal;
    const retry = { maxAttempts: 10, initialDelayMs: 500, maxDelayMs: 5000, ...this.options.retry };
    let attempt = 0;
    for (;;) {
      signal.throwIfAborted();
      let cause: unknown;
      let retryAfterMs: number | undefined;
      try {
        const response = await this.connect(this.#lastEventId, signal);
        if (response.status === 204) {
          // The server has nothing after the last id: everything was delivered.
          return;
        }
        if (!response.ok || response.body === null) {
          throw await ColloquyError.from(response);
        }
        for await (const event of decodeEvents(response.body)) {
          if (this.#lastEventId !== undefined && event.id <= this.#lastEventId) {
            continue;
          }
          this.#lastEventId = event.id;
          attempt = 0;
          yield event;
          if (isTerminal(event)) {
            return;
          }
        }
        cause = new Error("The stream ended before the turn did");
      } catch (error) {
        signal.throwIfAborted();
        if (!worthRetrying(error)) {
          throw error;
        }
        cause = error;
        if (error instanceof ColloquyError && error.retryAfterSeconds !== undefined) {
          retryAfterMs = error.retryAfterSeconds * 1000;
        }
      }
      attempt += 1;
      if (attempt > retry.maxAttempts) {
        throw cause;
      }
      const delayMs = retryAfterMs ?? Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (attempt - 1));
      this.options.onReconnect?.({ attempt, delayMs, lastEventId: this.#lastEventId, cause });
      await sleep(delayMs, signal);
    }
  }
}

function worthRetrying(error: unknown): boolean {
  if (error instanceof StreamProtocolError) {
    return false;
  }
  if (error instanceof ColloquyError) {
    return error.retryable && (error.retryAfterSeconds ?? 0) <= LONGEST_RETRY_AFTER_S;
  }
  // fetch and body reads fail with a TypeError (or a socket error in Node) when the network drops.
  return true;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
