import type { TurnView } from "../state/turns";
import { Citations } from "./Citations";
import { GapFlags } from "./GapFlags";
import { RunAnswer } from "./RunAnswer";
import { TurnStatus } from "./TurnStatus";

/** A question and its answer: one, or one column per model when the turn fans out. */
export function TurnItem({ turn }: { turn: TurnView }) {
  const columns = turn.runs.length > 1;
  return (
    <article class="turn" data-turn-id={turn.turnId} data-status={turn.status}>
      {turn.question !== "" && <div class="message user"><p>{turn.question}</p></div>}
      <div class="message assistant">
        {turn.runs.length === 0 && turn.status === "sending" && <p class="typing" aria-label="Waiting for the answer">●●●</p>}
        <div class={columns ? "columns" : "single"} style={columns ? `--columns: ${turn.runs.length}` : undefined}>
          {turn.runs.map((run) => <RunAnswer key={run.runId} run={run} column={columns} />)}
        </div>
        {turn.escalation && <p class="escalation" role="status">Handed to a human agent ({turn.escalation}).</p>}
        {turn.status === "failed" && turn.error && <p class="error" role="alert">{turn.error.message}</p>}
        <Citations citations={turn.citations} confidence={turn.confidence} />
        <GapFlags gaps={turn.gaps} />
        <TurnStatus turn={turn} />
      </div>
    </article>
  );
}
