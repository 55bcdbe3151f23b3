import type { RunView } from "../state/turns";
import { Markdown } from "./Markdown";
import { formatMs, UsageText } from "./TurnStatus";

/** One model's answer: a column of its own when the turn fans out. */
export function RunAnswer({ run, column }: { run: RunView; column: boolean }) {
  return (
    <section class={`run ${run.status}`} data-run-id={run.runId} data-model={run.model}
      aria-label={column ? `Answer of ${run.model || "the model"}` : undefined}>
      {column && (
        <header class="run-head">
          <strong>{run.model || "model"}</strong>
          <span class={`badge ${run.status}`}>{run.status === "streaming" ? "streaming…" : run.status}</span>
        </header>
      )}
      {run.text !== "" && <Markdown text={run.text} streaming={run.status === "streaming"} />}
      {run.text === "" && run.status === "streaming" && <p class="typing" aria-label="Waiting for the answer">●●●</p>}
      {run.error && <p class="error">{run.error.code}: {run.error.message}</p>}
      {column && (run.usage || run.latencyMs !== undefined) && (
        <footer class="run-foot">
          {run.latencyMs !== undefined && <span>{formatMs(run.latencyMs)}</span>}
          {run.usage && <UsageText usage={run.usage} />}
          {run.provider && <span>{run.provider}</span>}
        </footer>
      )}
    </section>
  );
}
