import { test } from "node:test";
import assert from "node:assert/strict";
import { ColloquyClient, ColloquyError } from "../dist/index.js";
import { collect, errorResponse, frame, sse, tokens } from "./sse.mjs";

function recording(answer) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, method: init.method, headers: init.headers, body: init.body });
    return answer(calls.length, url, init);
  };
  return { calls, fetch };
}

test("requests carry the credential and the user, and JSON bodies", async () => {
  const { calls, fetch } = recording(() => new Response(JSON.stringify({ session_id: "s", status: "open", created_at: "t" }), { status: 201 }));
  const client = new ColloquyClient({ baseUrl: "http://h:1/", credential: "ck_x", userId: "u-7", fetch });
  const created = await client.createSession({ persona: "Aria" });
  assert.equal(created.session_id, "s");
  assert.equal(calls[0].url, "http://h:1/v1/sessions");
  assert.equal(calls[0].method, "POST");
  assert.equal(calls[0].headers.Authorization, "Bearer ck_x");
  assert.equal(calls[0].headers["X-User-Id"], "u-7");
  assert.equal(calls[0].headers["Content-Type"], "application/json");
  assert.deepEqual(JSON.parse(calls[0].body), { persona: "Aria" });
});

test("the session list passes its query", async () => {
  const { calls, fetch } = recording(() => new Response(JSON.stringify({ sessions: [], next_cursor: null })));
  await new ColloquyClient({ fetch }).listSessions({ status: "open", q: "refund & 100%", limit: 5, cursor: "abc" });
  assert.equal(calls[0].url, "/v1/sessions?status=open&q=refund+%26+100%25&limit=5&cursor=abc");
});

test("a citation's passage is read by its document and position", async () => {
  const { calls, fetch } = recording(() => new Response(JSON.stringify({ document_id: "d/1", chunk_index: 3, text: "x" })));
  const passage = await new ColloquyClient({ fetch }).passage("d/1", 3);
  assert.equal(calls[0].url, "/v1/knowledge/d%2F1/chunks/3");
  assert.equal(calls[0].method, "GET");
  assert.equal(passage.text, "x");
});

test("an error answer becomes a ColloquyError with code, message and trace id", async () => {
  const { fetch } = recording(() => errorResponse(409, "TURN_IN_PROGRESS"));
  await assert.rejects(new ColloquyClient({ fetch }).deleteSession("s"), (error) => error instanceof ColloquyError
    && error.status === 409 && error.code === "TURN_IN_PROGRESS" && error.message === "TURN_IN_PROGRESS happened");
});

test("a body that is not Colloquy's still gives a code", async () => {
  const { fetch } = recording(() => new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
  await assert.rejects(new ColloquyClient({ fetch }).getSession("s"), (error) => error.code === "HTTP_502");
});

test("a turn posts its message with a turn id, and resumes through the events route after a drop", async () => {
  const { calls, fetch } = recording((n) => n === 1
    ? sse(frame("turn.started", 1, { run_ids: ["r1"] }) + tokens(2, 3), { failure: new TypeError("terminated") })
    : sse(tokens(4, 4) + frame("turn.completed", 5, { message_id: "m", text: "", latency_ms: 1, usage: {} })));
  const client = new ColloquyClient({ fetch, credential: "k" });
  const events = await collect(client.startTurn("s 1", "Hello", { models: ["a", "b"], retry: { initialDelayMs: 1 } }));
  assert.deepEqual(events.map((e) => e.id), [1, 2, 3, 4, 5]);
  const posted = JSON.parse(calls[0].body);
  assert.equal(posted.message, "Hello");
  assert.deepEqual(posted.models, ["a", "b"]);
  assert.match(posted.turn_id, /^[0-9a-f-]{36}$/);
  assert.equal(calls[0].url, "/v1/sessions/s%201/turns");
  assert.equal(calls[0].headers.Accept, "text/event-stream");
  assert.equal(calls[1].method, "GET");
  assert.equal(calls[1].url, `/v1/sessions/s%201/turns/${posted.turn_id}/events`);
  assert.equal(calls[1].headers["Last-Event-ID"], "3");
  assert.equal(calls[1].headers.Authorization, "Bearer k");
});

test("a drop before any event sends the same turn again, never a second turn", async () => {
  const { calls, fetch } = recording((n) => n === 1
    ? Promise.reject(new TypeError("fetch failed"))
    : sse(frame("turn.completed", 1, { message_id: "m", text: "", latency_ms: 1, usage: {} })));
  await collect(new ColloquyClient({ fetch }).startTurn("s", "Hi", { retry: { initialDelayMs: 1 } }));
  assert.equal(calls.length, 2);
  assert.equal(calls[1].method, "POST");
  assert.equal(JSON.parse(calls[1].body).turn_id, JSON.parse(calls[0].body).turn_id);
});

test("aborting a turn cancels it on the server unless told not to", async () => {
  for (const cancelOnAbort of [true, false]) {
    const controller = new AbortController();
    const { calls, fetch } = recording((n, url) => url.endsWith("/cancel")
      ? new Response(JSON.stringify({ status: "cancelling" }), { status: 202 })
      : sse(tokens(1, 1), { failure: new TypeError("terminated") }));
    const stream = new ColloquyClient({ fetch }).startTurn("s", "Hi", { turnId: "t-9", signal: controller.signal,
      cancelOnAbort, retry: { initialDelayMs: 10_000 }, onReconnect: () => controller.abort() });
    await assert.rejects(collect(stream), { name: "AbortError" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const cancels = calls.filter((c) => c.url === "/v1/sessions/s/turns/t-9/cancel");
    assert.equal(cancels.length, cancelOnAbort ? 1 : 0, `cancelOnAbort ${cancelOnAbort}`);
  }
});

test("joining a turn asks for the events after the given id", async () => {
  const { calls, fetch } = recording(() => new Response(null, { status: 204 }));
  const events = await collect(new ColloquyClient({ fetch }).joinTurn("s", "t", { lastEventId: 12 }));
  assert.deepEqual(events, []);
  assert.equal(calls[0].headers["Last-Event-ID"], "12");
});

test("an upload in Node posts multipart and reports the end", async () => {
  const { calls, fetch } = recording(() => new Response(JSON.stringify({ document_id: "d", status: "processing" }), { status: 202 }));
  const progress = [];
  const accepted = await new ColloquyClient({ fetch }).uploadDocument(new Blob(["# Hi"]), "hi.md",
    { onProgress: (sent, total) => progress.push([sent, total]) });
  assert.equal(accepted.document_id, "d");
  assert.ok(calls[0].body instanceof FormData);
  assert.equal(calls[0].body.get("file").name, "hi.md");
  assert.equal(calls[0].headers["Content-Type"], undefined);
  assert.deepEqual(progress, [[4, 4]]);
});
