import { test } from "node:test";
import assert from "node:assert/strict";
import { ColloquyError, TurnStream } from "../dist/index.js";
import { collect, errorResponse, frame, sse, tokens } from "./sse.mjs";

const fast = { initialDelayMs: 1, maxDelayMs: 2 };
const completed = (id) => frame("turn.completed", id, { message_id: "m", text: "", latency_ms: 1, usage: {} });

test("a dropped stream resumes after the last event, with nothing missed or repeated", async () => {
  const asked = [];
  const reconnects = [];
  const stream = new TurnStream(async (lastEventId) => {
    asked.push(lastEventId);
    if (asked.length === 1) return sse(tokens(1, 3) + "event: tok", { failure: new TypeError("terminated") });
    // The server resends from the id asked for; a repeated frame must not reach the consumer.
    return sse(tokens(3, 6) + completed(7));
  }, { retry: fast, onReconnect: (r) => reconnects.push(r) });
  const events = await collect(stream);
  assert.deepEqual(events.map((e) => e.id), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(asked, [undefined, 3]);
  assert.equal(reconnects.length, 1);
  assert.equal(reconnects[0].lastEventId, 3);
  assert.equal(reconnects[0].attempt, 1);
  assert.equal(stream.lastEventId, 7);
});

test("a stream that closes cleanly before its terminal event is resumed too", async () => {
  let calls = 0;
  const events = await collect(new TurnStream(async () => ++calls === 1 ? sse(tokens(1, 2)) : sse(completed(3)),
    { retry: fast }));
  assert.deepEqual(events.map((e) => e.type), ["token", "token", "turn.completed"]);
});

test("204 on a resume ends the stream: everything was delivered", async () => {
  let calls = 0;
  const events = await collect(new TurnStream(async () => ++calls === 1
    ? sse(tokens(1, 2), { failure: new TypeError("terminated") })
    : new Response(null, { status: 204 }), { retry: fast }));
  assert.deepEqual(events.map((e) => e.id), [1, 2]);
});

test("the stream stops after the terminal event even if the body goes on", async () => {
  const events = await collect(new TurnStream(async () => sse(tokens(1, 1) + completed(2) + tokens(3, 4))));
  assert.deepEqual(events.map((e) => e.id), [1, 2]);
});

test("a refusal that retrying cannot change is thrown with the server's code", async () => {
  let calls = 0;
  const stream = new TurnStream(async () => { calls++; return errorResponse(404, "SESSION_NOT_FOUND"); },
    { retry: fast });
  await assert.rejects(collect(stream), (error) => error instanceof ColloquyError && error.status === 404
    && error.code === "SESSION_NOT_FOUND" && error.traceId === "abc");
  assert.equal(calls, 1);
});

test("503 with Retry-After is waited for and retried", async () => {
  let calls = 0;
  const reconnects = [];
  const events = await collect(new TurnStream(async () => ++calls === 1
    ? errorResponse(503, "JOURNAL_UNAVAILABLE", { "Retry-After": "0" })
    : sse(completed(1)), { retry: fast, onReconnect: (r) => reconnects.push(r) }));
  assert.equal(events.length, 1);
  assert.equal(reconnects[0].delayMs, 0);
});

test("a Retry-After too long to wait for fails the stream", async () => {
  const stream = new TurnStream(async () => errorResponse(429, "QUOTA_EXCEEDED", { "Retry-After": "86400" }),
    { retry: fast });
  await assert.rejects(collect(stream), (error) => error.code === "QUOTA_EXCEEDED" && error.retryAfterSeconds === 86400);
});

test("it gives up after maxAttempts reconnections without a new event", async () => {
  let calls = 0;
  const stream = new TurnStream(async () => { calls++; throw new TypeError("fetch failed"); },
    { retry: { ...fast, maxAttempts: 3 } });
  await assert.rejects(collect(stream), /fetch failed/);
  assert.equal(calls, 4);
});

test("backoff doubles up to the cap", async () => {
  const delays = [];
  const stream = new TurnStream(async () => { throw new TypeError("down"); },
    { retry: { initialDelayMs: 1, maxDelayMs: 4, maxAttempts: 5 }, onReconnect: (r) => delays.push(r.delayMs) });
  await assert.rejects(collect(stream));
  assert.deepEqual(delays, [1, 2, 4, 4, 4]);
});

test("aborting stops the stream with the signal's reason, also while waiting to reconnect", async () => {
  const controller = new AbortController();
  const stream = new TurnStream(async (lastEventId, signal) => {
    if (lastEventId === undefined) return sse(tokens(1, 1), { failure: new TypeError("terminated") });
    throw new TypeError("still down");
  }, { signal: controller.signal, retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    onReconnect: () => controller.abort(new Error("stopped by the user")) });
  const seen = [];
  await assert.rejects((async () => { for await (const e of stream) seen.push(e.id); })(), /stopped by the user/);
  assert.deepEqual(seen, [1]);
});

test("a stream is iterated once", async () => {
  const stream = new TurnStream(async () => sse(completed(1)));
  await collect(stream);
  await assert.rejects(collect(stream), /once/);
});
