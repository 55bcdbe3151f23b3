import type { Citation, Message, TurnEvent, Usage } from "@colloquy/client";

/** One model's answer within a turn: a column when the turn fans out. */
export interface RunView {
  runId: string;
  model: string;
  text: string;
  status: "streaming" | "completed" | "failed" | "stopped";
  provider?: string;
  usage?: Usage;
  latencyMs?: number;
  error?: { code: string; message: string };
}

export interface GapView {
  attribute: string;
  suggestion: string;
}

/** A question and what came back, as the screen shows it. */
export interface TurnView {
  turnId: string;
  question: string;
  /** The models asked for, in order: the runs come in the same order. */
  models: string[];
  runs: RunView[];
  status: "sending" | "streaming" | "completed" | "failed" | "cancelled";
  citations: Citation[];
  confidence?: number;
  gaps: GapView[];
  usage?: Usage;
  latencyMs?: number;
  error?: { code: string; message: string };
  cancelReason?: string;
  escalation?: string;
  lastEventId?: number;
}

export function newTurn(turnId: string, question: string, models: string[]): TurnView {
  return { turnId, question, models, runs: [], status: "sending", citations: [], gaps: [] };
}

/** The turn after one event of its stream. Pure: the screen re-renders from what it returns. */
export function applyEvent(turn: TurnView, event: TurnEvent): TurnView {
  const next = { ...turn, lastEventId: event.id };
  switch (event.type) {
    case "turn.started":
      return {
        ...next,
        status: "streaming",
        runs: event.run_ids.map((runId, i) => ({
          runId, model: turn.models[i] ?? (event.run_ids.length === 1 ? "" : `run ${i + 1}`), text: "", status: "streaming",
        })),
      };
    case "retrieval":
      return { ...next, citations: event.citations, confidence: event.confidence };
    case "token":
      return { ...next, runs: updateRun(next.runs, event.run_id, (run) => ({ ...run, text: run.text + event.text })) };
    case "gap":
      return { ...next, gaps: [...next.gaps, { attribute: event.attribute, suggestion: event.suggestion }] };
    case "run.completed":
      return {
        ...next,
        runs: updateRun(next.runs, event.run_id, (run) => ({
          ...run, status: "completed", text: event.text, model: event.model, provider: event.provider,
          usage: event.usage, latencyMs: event.latency_ms,
        })),
      };
    case "run.failed":
      return {
        ...next,
        runs: updateRun(next.runs, event.run_id, (run) => ({
          ...run, status: "failed", error: { code: event.code, message: event.message },
        })),
      };
    case "turn.completed":
      return { ...next, status: "completed", usage: event.usage, latencyMs: event.latency_ms, runs: settle(next.runs, "failed") };
    case "turn.failed":
      return { ...next, status: "failed", error: { code: event.code, message: event.message }, runs: settle(next.runs, "failed") };
    case "turn.cancelled":
      return { ...next, status: "cancelled", cancelReason: event.reason, runs: settle(next.runs, "stopped") };
    case "escalation":
      return { ...next, escalation: event.reason };
    default:
      return next;
  }
}

function updateRun(runs: RunView[], runId: string, change: (run: RunView) => RunView): RunView[] {
  const found = runs.some((run) => run.runId === runId);
  const all = found ? runs : [...runs, { runId, model: "", text: "", status: "streaming" as const }];
  return all.map((run) => (run.runId === runId ? change(run) : run));
}

/** Runs still streaming when the turn ends end with it. */
function settle(runs: RunView[], status: "failed" | "stopped"): RunView[] {
  return runs.map((run) => (run.status === "streaming" ? { ...run, status } : run));
}

/** A session's stored messages as turns: a question, then one answer per run. */
export function turnsFromMessages(messages: Message[]): TurnView[] {
  const turns: TurnView[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      turns.push({ ...newTurn(message.turn_id, message.content, []), status: "completed" });
      continue;
    }
    const turn = turns.findLast((t) => t.turnId === message.turn_id);
    if (!turn) continue;
    turn.runs.push({
      runId: message.run_id ?? message.message_id, model: message.model ?? "", text: message.content, status: "completed",
    });
    if (turn.citations.length === 0) turn.citations = message.citations;
  }
  return turns;
}
