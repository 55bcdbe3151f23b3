// Runs one turn per case against a Colloquy server and reads each turn's stream as a browser would:
// the body decoded by TextDecoder (UTF-8, streaming) and parsed by eventsource-parser, an SSE parser
// that is not Colloquy's. Writes one JSON line per case to the output file: the texts of its token
// events in order, its run.completed and turn.completed texts, its terminal event, and anything odd.
//
//   node read.mjs cases.json results.jsonl
//   cases.json: {"concurrency": 4, "cases": [{"id": 0, "message": "…"}, …]}
//   environment: COLLOQUY_BASE_URL, COLLOQUY_API_KEY
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createParser } from 'eventsource-parser';

const [casesFile, resultsFile] = process.argv.slice(2);
const base = process.env.COLLOQUY_BASE_URL;
const key = process.env.COLLOQUY_API_KEY;
if (!casesFile || !resultsFile || !base || !key) {
  console.error('usage: COLLOQUY_BASE_URL=… COLLOQUY_API_KEY=… node read.mjs cases.json results.jsonl');
  process.exit(2);
}
const { concurrency, cases } = JSON.parse(await readFile(casesFile, 'utf8'));
const auth = { Authorization: `Bearer ${key}` };
const json = { ...auth, 'Content-Type': 'application/json' };
const terminals = new Set(['turn.completed', 'turn.failed', 'turn.cancelled']);

async function runCase({ id, message }) {
  const result = { id, sessionId: null, tokens: [], runTexts: [], turnText: null, terminal: null, afterTerminal: 0,
    problems: [] };
  const opened = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: json, body: '{}' });
  if (opened.status !== 201) {
    result.problems.push(`open: ${opened.status} ${await opened.text()}`);
    return result;
  }
  const { session_id: sessionId } = await opened.json();
  result.sessionId = sessionId;
  const turn = await fetch(`${base}/v1/sessions/${sessionId}/turns`, {
    method: 'POST',
    headers: { ...json, Accept: 'text/event-stream' },
    body: JSON.stringify({ message }),
  });
  if (turn.status !== 200) {
    result.problems.push(`turn: ${turn.status} ${await turn.text()}`);
    return result;
  }
  let lastId = 0;
  const parser = createParser({
    onEvent(event) {
      if (result.terminal !== null) {
        result.afterTerminal++;
      }
      const frameId = Number(event.id);
      if (!(frameId > lastId)) {
        result.problems.push(`id ${event.id} after ${lastId}`);
      }
      lastId = frameId;
      let data;
      try {
        data = JSON.parse(event.data);
      } catch (e) {
        result.problems.push(`event ${event.event}: data is not JSON: ${String(e).slice(0, 200)}`);
        return;
      }
      if (event.event === 'token') {
        result.tokens.push(data.text);
      } else if (event.event === 'run.completed') {
        result.runTexts.push(data.text);
      } else if (event.event === 'turn.completed') {
        result.turnText = data.text;
      }
      if (terminals.has(event.event)) {
        result.terminal = event.event;
        if (event.event !== 'turn.completed') {
          result.problems.push(`${event.event}: ${event.data.slice(0, 300)}`);
        }
      }
    },
    onError(error) {
      result.problems.push(`parser: ${String(error).slice(0, 300)}`);
    },
  });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of turn.body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  parser.feed(decoder.decode());
  const closed = await fetch(`${base}/v1/sessions/${sessionId}/close`, { method: 'POST', headers: json, body: '{}' });
  if (closed.status !== 200) {
    result.problems.push(`close: ${closed.status} ${await closed.text()}`);
  }
  return result;
}

const out = createWriteStream(resultsFile);
let next = 0;
async function worker() {
  while (next < cases.length) {
    const item = cases[next++];
    let result;
    try {
      result = await runCase(item);
    } catch (e) {
      result = { id: item.id, tokens: [], runTexts: [], turnText: null, terminal: null, afterTerminal: 0,
        problems: [`client: ${String(e).slice(0, 300)}`] };
    }
    if (!out.write(JSON.stringify(result) + '\n')) {
      await once(out, 'drain');
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
out.end();
await once(out, 'finish');
console.log(`read ${cases.length} turns`);
