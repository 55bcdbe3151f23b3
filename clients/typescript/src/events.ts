/**
 * The canonical events of a turn's stream, as Colloquy sends them: every frame has an `event:` name,
 * an `id:` (1, 2, 3 … per turn) and one line of JSON `data:` carrying `session_id`, `turn_id` and
 * `trace_id`. Each event here is that data with its name as `type` and its frame id as `id`.
 */

/** Fields every event of a turn carries. */
export interface EventBase {
  /** The frame's id: strictly increasing within the turn, the value to resume after. */
  id: number;
  session_id: string;
  turn_id: string;
  trace_id: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
}

export interface Citation {
  document_id: string;
  source: string;
  section: string | null;
  chunk_index: number;
  score: number;
}

export interface TurnStarted extends EventBase {
  type: "turn.started";
  run_ids: string[];
}

export interface Retrieval extends EventBase {
  type: "retrieval";
  citations: Citation[];
  confidence: number;
}

export interface Token extends EventBase {
  type: "token";
  text: string;
  run_id: string;
}

export interface GapFlag extends EventBase {
  type: "gap";
  attribute: string;
  suggestion: string;
}

export interface RunCompleted extends EventBase {
  type: "run.completed";
  run_id: string;
  provider: string;
  model: string;
  text: string;
  usage: Usage;
  latency_ms: number;
}

export interface RunFailed extends EventBase {
  type: "run.failed";
  run_id: string;
  code: string;
  message: string;
}

export interface TurnCompleted extends EventBase {
  type: "turn.completed";
  message_id: string;
  text: string;
  latency_ms: number;
  usage: Usage;
}

export interface TurnFailed extends EventBase {
  type: "turn.failed";
  code: string;
  message: string;
}

export interface TurnCancelled extends EventBase {
  type: "turn.cancelled";
  reason: string;
}

/** The support flow's intent decision, sent before retrieval. */
export interface Intent extends EventBase {
  type: "intent";
  intent: string;
}

/** The session is handed to a human. */
export interface Escalation extends EventBase {
  type: "escalation";
  reason: string;
}

/** An event this version of the client does not know, passed on as it came. */
export interface UnknownEvent extends EventBase {
  type: "unknown";
  event: string;
  data: Record<string, unknown>;
}

export type TurnEvent =
  | TurnStarted
  | Retrieval
  | Token
  | GapFlag
  | RunCompleted
  | RunFailed
  | TurnCompleted
  | TurnFailed
  | TurnCancelled
  | Intent
  | Escalation
  | UnknownEvent;

export type TerminalEvent = TurnCompleted | TurnFailed | TurnCancelled;

const KNOWN = new Set<string>([
  "turn.started",
  "retrieval",
  "token",
  "gap",
  "run.completed",
  "run.failed",
  "turn.completed",
  "turn.failed",
  "turn.cancelled",
  "intent",
  "escalation",
]);

/** Exactly one of these ends a stream. */
export function isTerminal(event: TurnEvent): event is TerminalEvent {
  return event.type === "turn.completed" || event.type === "turn.failed" || event.type === "turn.cancelled";
}

/** The typed event of one SSE frame; unknown names become {@link UnknownEvent}. */
export function toTurnEvent(name: string, id: number, data: Record<string, unknown>): TurnEvent {
  if (KNOWN.has(name)) {
    return { ...data, type: name, id } as TurnEvent;
  }
  return {
    type: "unknown",
    event: name,
    id,
    session_id: String(data.session_id ?? ""),
    turn_id: String(data.turn_id ?? ""),
    trace_id: String(data.trace_id ?? ""),
    data,
  };
}
