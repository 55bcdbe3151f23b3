import { EventSourceParserStream } from "eventsource-parser/stream";
import { toTurnEvent, type TurnEvent } from "./events.js";

/**
 * Decodes a turn's Server-Sent Events body into typed events. It knows nothing of the transport: it
 * reads the bytes it is given until they end, and leaves reconnecting to {@link TurnStream}.
 * Comments (`: keep-alive`) are skipped by the parser; a frame whose data is not a JSON object, or
 * whose id is not a number, is a protocol error.
 */
export async function* decodeEvents(body: ReadableStream<BufferSource>): AsyncGenerator<TurnEvent> {
  const frames = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { done, value } = await frames.read();
      if (done) {
        return;
      }
      yield toTurnEvent(value.event ?? "message", frameId(value.id), frameData(value.data));
    }
  } finally {
    // Reached also when the consumer stops early: release the connection.
    await frames.cancel().catch(() => undefined);
  }
}

function frameId(id: string | undefined): number {
  const value = Number(id);
  if (id === undefined || id === "" || !Number.isSafeInteger(value) || value < 0) {
    throw new StreamProtocolError(`Frame without a valid id: ${JSON.stringify(id)}`);
  }
  return value;
}

function frameData(data: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new StreamProtocolError("Frame data is not JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new StreamProtocolError("Frame data is not a JSON object");
  }
  return parsed as Record<string, unknown>;
}

/** The server sent something that is not Colloquy's stream: retrying would not help. */
export class StreamProtocolError extends Error {
  override readonly name = "StreamProtocolError";
}
