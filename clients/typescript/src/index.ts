export { ColloquyClient } from "./client.js";
export type {
  ClientOptions,
  DocumentAccepted,
  DocumentStatus,
  Journal,
  JournalEntry,
  KnowledgeDocument,
  Message,
  Passage,
  Session,
  SessionCreated,
  SessionPage,
  SessionSummaryRow,
  TurnOptions,
  UploadOptions,
} from "./client.js";
export { decodeEvents, StreamProtocolError } from "./decode.js";
export { ColloquyError } from "./errors.js";
export { isTerminal, toTurnEvent } from "./events.js";
export type * from "./events.js";
export { TurnStream } from "./stream.js";
export type { Connect, Reconnecting, RetryOptions, TurnStreamOptions } from "./stream.js";
