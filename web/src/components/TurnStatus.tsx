import type { Usage } from "@colloquy/client";
import type { TurnView } from "../state/turns";

/** How the turn went: status, latency, tokens and cost, and the retrieval's confidence. */
export function TurnStatus({ turn }: { turn: TurnView }) {
  return (
    <div class="turn-status" data-status={turn.status}>
      <span class={`badge ${turn.status}`}>{label(turn)}</span>
      {turn.latencyMs !== undefined && <span>{formatMs(turn.latencyMs)}</span>}
      {turn.usage && <UsageText usage={turn.usage} />}
      {turn.confidence !== undefined && <span title="Retrieval confidence">confidence {turn.confidence.toFixed(2)}</span>}
    </div>
  );
}

export function UsageText({ usage }: { usage: Usage }) {
  return (
    <span title={`${usage.prompt_tokens} prompt + ${usage.completion_tokens} completion tokens`}>
      {usage.total_tokens} tokens{usage.cost_usd > 0 ? ` · $${usage.cost_usd.toFixed(4)}` : ""}
    </span>
  );
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function label(turn: TurnView): string {
  switch (turn.status) {
    case "sending": return "sending…";
    case "streaming": return "streaming…";
    case "completed": return "completed";
    case "cancelled": return `stopped${turn.cancelReason && turn.cancelReason !== "cancelled" ? ` (${turn.cancelReason})` : ""}`;
    case "failed": return `failed: ${turn.error?.code ?? "error"}`;
  }
}
