import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeEvents, StreamProtocolError, isTerminal } from "../dist/index.js";
import { body, collect, frame, tokens } from "./sse.mjs";

test("frames split at any byte become typed events, comments skipped", async () => {
  const text = frame("turn.started", 1, { run_ids: ["r1"] }) + ": keep-alive\n\n"
    + frame("retrieval", 2, { citations: [{ document_id: "d", source: "a.md", section: "Intro", chunk_index: 0, score: 0.8 }], confidence: 0.7 })
    + frame("token", 3, { text: "héllo → wörld\r", run_id: "r1" })
    + frame("gap", 4, { attribute: "eye colour", suggestion: "Say what colour her eyes are" })
    + frame("turn.completed", 5, { message_id: "m", text: "héllo → wörld\r", latency_ms: 12, usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, cost_usd: 0 } });
  for (const size of [1, 2, 3, 64, 10_000]) {
    const events = await collect(decodeEvents(body(text, { size })));
    assert.deepEqual(events.map((e) => [e.type, e.id]),
      [["turn.started", 1], ["retrieval", 2], ["token", 3], ["gap", 4], ["turn.completed", 5]], `chunks of ${size}`);
    assert.equal(events[2].text, "héllo → wörld\r");
    assert.equal(events[1].citations[0].section, "Intro");
    assert.equal(events[3].attribute, "eye colour");
    assert.equal(events[0].session_id, "s1");
    assert.ok(isTerminal(events[4]));
  }
});

test("CRLF line endings are frames too", async () => {
  const text = frame("token", 1, { text: "a", run_id: "r" }).replaceAll("\n", "\r\n");
  const [event] = await collect(decodeEvents(body(text)));
  assert.equal(event.type, "token");
  assert.equal(event.text, "a");
});

test("an event this client does not know is passed on as unknown", async () => {
  const [event] = await collect(decodeEvents(body(frame("tool.called", 9, { tool: "lookup" }))));
  assert.equal(event.type, "unknown");
  assert.equal(event.event, "tool.called");
  assert.equal(event.id, 9);
  assert.equal(event.data.tool, "lookup");
});

test("data that is not a JSON object is a protocol error", async () => {
  await assert.rejects(collect(decodeEvents(body("event: token\nid: 1\ndata: nope\n\n"))), StreamProtocolError);
  await assert.rejects(collect(decodeEvents(body("event: token\nid: 1\ndata: [1]\n\n"))), StreamProtocolError);
});

test("a frame without a numeric id is a protocol error", async () => {
  await assert.rejects(collect(decodeEvents(body('event: token\ndata: {"text":"a"}\n\n'))), /valid id/);
  await assert.rejects(collect(decodeEvents(body('event: token\nid: x\ndata: {"text":"a"}\n\n'))), StreamProtocolError);
});

test("stopping early releases the body", async () => {
  let cancelled = false;
  const source = body(tokens(1, 100));
  const reader = source.getReader();
  const wrapped = new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close(); else controller.enqueue(value);
    },
    cancel() { cancelled = true; },
  });
  for await (const event of decodeEvents(wrapped)) {
    if (event.id === 2) break;
  }
  // Cancellation travels up the pipe chain asynchronously.
  for (let i = 0; i < 100 && !cancelled; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.ok(cancelled);
});
