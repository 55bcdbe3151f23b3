// The client against a running Colloquy with the mock model: run by TypeScriptClientIntegrationTest
// with COLLOQUY_BASE_URL and COLLOQUY_API_KEY (a real tenant key). Prints one line per check passed;
// any failure exits non-zero with the reason.
import assert from "node:assert/strict";
import { ColloquyClient, ColloquyError } from "../dist/index.js";

const baseUrl = process.env.COLLOQUY_BASE_URL;
const credential = process.env.COLLOQUY_API_KEY;
assert.ok(baseUrl && credential, "COLLOQUY_BASE_URL and COLLOQUY_API_KEY are required");
const client = new ColloquyClient({ baseUrl, credential });

async function collect(stream) {
  const events = [];
  for await (const event of stream) events.push(event);
  return events;
}

function text(events, runId) {
  return events.filter((e) => e.type === "token" && (!runId || e.run_id === runId)).map((e) => e.text).join("");
}

async function until(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// A streamed turn: typed events, the tokens add up to the answer.
const { session_id: sessionId } = await client.createSession();
const events = await collect(client.startTurn(sessionId, "What is the refund policy?"));
assert.equal(events[0].type, "turn.started");
assert.deepEqual(events.map((e) => e.id), events.map((_, i) => i + 1), "ids count 1, 2, 3 …");
const completed = events.at(-1);
assert.equal(completed.type, "turn.completed");
assert.ok(text(events).length > 0);
assert.equal(text(events), completed.text);
assert.ok(completed.usage.completion_tokens > 0);
assert.ok(events.every((e) => e.session_id === sessionId && e.trace_id.length === 32));
console.log("streamed turn: %d events, %d tokens", events.length, events.filter((e) => e.type === "token").length);

// The connection drops after a few frames: the stream resumes after the last id, nothing twice.
let cut = false;
const dropping = new ColloquyClient({
  baseUrl, credential,
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    if (cut || !response.body || init.method !== "POST") return response;
    cut = true;
    let frames = 0;
    const reader = response.body.getReader();
    return new Response(new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        frames += new TextDecoder().decode(value).split("\n\n").length - 1;
        if (frames >= 3) {
          await reader.cancel();
          controller.error(new TypeError("network dropped"));
        }
      },
    }), { status: response.status, headers: response.headers });
  },
});
const reconnects = [];
const resumed = await collect(dropping.startTurn(sessionId, "Again, please",
  { onReconnect: (r) => reconnects.push(r), retry: { initialDelayMs: 50 } }));
assert.ok(cut && reconnects.length >= 1, "the connection was cut and taken up again");
assert.ok(reconnects[0].lastEventId >= 1);
assert.deepEqual(resumed.map((e) => e.id), resumed.map((_, i) => i + 1), "no id missed or repeated");
assert.equal(text(resumed), resumed.at(-1).text);
console.log("resumed after id %d: %d events, none twice", reconnects[0].lastEventId, resumed.length);

// Joining a finished turn after an id replays exactly the rest.
const turnId = events[0].turn_id;
const rest = await collect(client.joinTurn(sessionId, turnId, { lastEventId: 3 }));
assert.deepEqual(rest.map((e) => e.id), events.slice(3).map((e) => e.id));
assert.deepEqual(await collect(client.joinTurn(sessionId, turnId, { lastEventId: completed.id })), []);
console.log("joined a finished turn after id 3: %d events", rest.length);

// Fan-out to two models, one of which fails.
const fanOut = await collect(client.startTurn(sessionId, "Two opinions", { models: ["mock", "broken"] }));
const [okRun, brokenRun] = fanOut[0].run_ids;
assert.equal(fanOut.find((e) => e.type === "run.completed").run_id, okRun);
assert.equal(fanOut.find((e) => e.type === "run.failed").run_id, brokenRun);
assert.equal(text(fanOut, brokenRun), "");
console.log("fan-out: one run completed, one failed");

// Stop: aborting the signal cancels the turn on the server.
const controller = new AbortController();
const stopped = [];
await assert.rejects((async () => {
  for await (const event of client.startTurn(sessionId, "A long answer", { signal: controller.signal })) {
    stopped.push(event);
    if (event.type === "token") controller.abort();
  }
})(), { name: "AbortError" });
const stoppedTurn = stopped[0].turn_id;
const ending = (await collect(client.joinTurn(sessionId, stoppedTurn))).at(-1);
assert.equal(ending.type, "turn.cancelled");
console.log("aborted: the turn ended %s (%s)", ending.type, ending.reason);

// The session, its list entry, and its journal.
const session = await client.getSession(sessionId);
assert.equal(session.messages[0].role, "user");
assert.equal(session.messages[0].content, "What is the refund policy?");
assert.equal(session.messages[1].content, completed.text);
const listed = await until("the session in the list", async () =>
  (await client.listSessions({ limit: 100 })).sessions.find((s) => s.session_id === sessionId && s.turn_count >= 4));
assert.equal(listed.status, "open");
const found = await client.listSessions({ q: "REFUND POLICY" });
assert.ok(found.sessions.some((s) => s.session_id === sessionId), "found by its title, in any case");
assert.ok(found.sessions.every((s) => /refund policy/i.test(s.title ?? "")));
await assert.rejects(client.listSessions({ q: " ".repeat(3) }),
  (e) => e instanceof ColloquyError && e.status === 400 && e.code === "INVALID_QUERY");
const journal = await client.journal(sessionId);
assert.equal(journal.events[0].type, "SessionOpened");
const early = await client.journal(sessionId, 1);
assert.equal(early.events.length, 1);
console.log("session: %d messages, listed, journal of %d events", session.messages.length, journal.events.length);

// Errors come with the server's code.
await assert.rejects(client.getSession("00000000-0000-4000-8000-000000000000"),
  (e) => e instanceof ColloquyError && e.status === 404 && e.code === "SESSION_NOT_FOUND" && e.traceId.length === 32);
await assert.rejects(collect(client.startTurn(sessionId, "")),
  (e) => e instanceof ColloquyError && [400, 422].includes(e.status) && e.code === "EMPTY_MESSAGE");
await assert.rejects(new ColloquyClient({ baseUrl, credential: "ck_nope" }).listSessions(),
  (e) => e.status === 401 && e.code === "UNAUTHENTICATED");
console.log("errors: 404 SESSION_NOT_FOUND, empty message refused, 401 UNAUTHENTICATED");

// Knowledge: upload, wait until ready, cited by a turn, delete.
const document = "# Refunds\n\nRefunds are paid within 14 days of a return. The Acme refund policy covers every order.\n";
const progress = [];
const accepted = await client.uploadDocument(new Blob([document], { type: "text/markdown" }), "refunds.md",
  { onProgress: (sent, total) => progress.push([sent, total]) });
assert.equal(accepted.status, "processing");
assert.ok(progress.length >= 1);
const ready = await until("the document to be ready", async () => {
  const status = await client.documentStatus(accepted.document_id);
  assert.notEqual(status.status, "failed", status.error_message);
  return status.status === "ready" ? status : undefined;
}, 60_000);
assert.ok(ready.chunk_count >= 1);
const documents = await client.listDocuments();
assert.ok(documents.some((d) => d.id === accepted.document_id && d.filename === "refunds.md" && d.version >= 1));
const grounded = await collect(client.startTurn(sessionId, "How many days until refunds are paid?"));
const retrieval = grounded.find((e) => e.type === "retrieval");
assert.ok(retrieval.citations.some((c) => c.document_id === accepted.document_id && c.source === "refunds.md"),
  JSON.stringify(retrieval));
const cited = retrieval.citations.find((c) => c.document_id === accepted.document_id);
const passage = await client.passage(cited.document_id, cited.chunk_index);
assert.equal(passage.filename, "refunds.md");
assert.equal(passage.section, cited.section);
assert.match(passage.text, /Refunds are paid within 14 days of a return/);
await client.deleteDocument(accepted.document_id);
assert.ok(!(await client.listDocuments()).some((d) => d.id === accepted.document_id));
await assert.rejects(client.passage(cited.document_id, cited.chunk_index),
  (e) => e instanceof ColloquyError && e.status === 404 && e.code === "PASSAGE_NOT_FOUND");
console.log("knowledge: uploaded, ready with %d chunks, cited (confidence %s), passage read, deleted", ready.chunk_count,
  retrieval.confidence);

await client.deleteSession(sessionId);
await assert.rejects(client.getSession(sessionId), (e) => e.code === "SESSION_NOT_FOUND");
console.log("deleted the session");
console.log("live: all checks passed");
