// Helpers for the unit tests: SSE frames as Colloquy writes them, and bodies that end or break.

const encoder = new TextEncoder();

export function frame(event, id, data) {
  const common = { session_id: "s1", turn_id: "t1", trace_id: "tr1" };
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify({ ...common, ...data })}\n\n`;
}

export function tokens(from, to) {
  let text = "";
  for (let id = from; id <= to; id++) text += frame("token", id, { text: `w${id} `, run_id: "r1" });
  return text;
}

/** A body delivering `text` in pieces of `size` bytes, then ending, or failing with `failure`. */
export function body(text, { size = 7, failure } = {}) {
  const bytes = encoder.encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset < bytes.length) {
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      } else if (failure) {
        controller.error(failure);
      } else {
        controller.close();
      }
    },
  });
}

export function sse(text, options) {
  return new Response(body(text, options), { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

export function errorResponse(status, code, headers = {}) {
  return new Response(JSON.stringify({ error: { code, message: `${code} happened`, trace_id: "abc" } }),
    { status, headers: { "Content-Type": "application/json", ...headers } });
}

export async function collect(iterable) {
  const events = [];
  for await (const event of iterable) events.push(event);
  return events;
}
