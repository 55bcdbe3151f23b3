// Runs the official openai package against a running Colloquy, as any client of OpenAI's API would:
// only its base URL and key are Colloquy's. Prints "ok <check>" per check; exits non-zero on the first
// that fails. Environment: COLLOQUY_BASE_URL (e.g. http://127.0.0.1:8080), COLLOQUY_API_KEY (ck_…),
// COLLOQUY_MODEL (a model of GET /v1/models).
import assert from 'node:assert/strict';
import OpenAI from 'openai';

const origin = process.env.COLLOQUY_BASE_URL;
const apiKey = process.env.COLLOQUY_API_KEY;
const model = process.env.COLLOQUY_MODEL;
const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey, maxRetries: 0 });

async function check(name, body) {
  await body();
  console.log(`ok ${name}`);
}

async function sessionMessages(sessionId) {
  const response = await fetch(`${origin}/v1/sessions/${sessionId}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  assert.equal(response.status, 200);
  return (await response.json()).messages;
}

let sessionId;

await check('create', async () => {
  const { data, response } = await client.chat.completions
    .create({ model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there' }] })
    .withResponse();
  assert.equal(data.object, 'chat.completion');
  assert.equal(data.choices[0].message.role, 'assistant');
  assert.ok(data.choices[0].message.content.length > 0);
  assert.equal(data.choices[0].finish_reason, 'stop');
  assert.ok(data.usage.completion_tokens > 0);
  sessionId = response.headers.get('x-session-id');
  assert.match(sessionId, /^[0-9a-f-]{36}$/);
  assert.equal(data.colloquy.session_id, sessionId);
});

await check('create-stream', async () => {
  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true },
  });
  let text = '';
  let usage;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    assert.equal(chunk.object, 'chat.completion.chunk');
    text += chunk.choices[0]?.delta?.content ?? '';
    usage = chunk.usage ?? usage;
  }
  assert.ok(chunks > 2);
  assert.ok(text.length > 0);
  assert.ok(usage.completion_tokens > 0);
});

await check('stream-helper', async () => {
  let streamed = '';
  const runner = client.chat.completions
    .stream({ model, messages: [{ role: 'user', content: 'Use the helper' }] })
    .on('content', (delta) => { streamed += delta; });
  const completion = await runner.finalChatCompletion();
  assert.equal(completion.choices[0].message.content, streamed);
  assert.ok(streamed.length > 0);
  assert.equal(await runner.finalContent(), streamed);
});

await check('models-list', async () => {
  const ids = [];
  for await (const entry of client.models.list()) {
    ids.push(entry.id);
  }
  assert.ok(ids.includes(model), `${model} in ${ids}`);
});

await check('typed-errors', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
    (error) => error instanceof OpenAI.NotFoundError && error.status === 404 && error.code === 'model_not_found'
      && error.param === 'model' && typeof error.requestID === 'string');
  await assert.rejects(
    client.chat.completions.create({ model, messages: [] }),
    (error) => error instanceof OpenAI.BadRequestError && error.param === 'messages');
  const stranger = new OpenAI({ baseURL: `${origin}/v1`, apiKey: 'ck_unknown_unknown', maxRetries: 0 });
  await assert.rejects(stranger.models.list(), (error) => error instanceof OpenAI.AuthenticationError);
});

await check('session-default-headers', async () => {
  const continued = new OpenAI({ baseURL: `${origin}/v1`, apiKey, maxRetries: 0, defaultHeaders: { 'X-Session-Id': sessionId } });
  const { response } = await continued.chat.completions
    .create({ model, messages: [{ role: 'user', content: 'And again' }] })
    .withResponse();
  assert.equal(response.headers.get('x-session-id'), sessionId);
  assert.equal((await sessionMessages(sessionId)).length, 4);
});

await check('session-request-headers', async () => {
  const stream = client.chat.completions.stream(
    { model, messages: [{ role: 'user', content: 'Once more, streamed' }] },
    { headers: { 'X-Session-Id': sessionId } });
  await stream.finalChatCompletion();
  assert.equal((await sessionMessages(sessionId)).length, 6);
});
