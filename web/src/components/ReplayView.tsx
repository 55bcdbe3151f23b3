import { adminToken, journal, journalState } from "../state/store";
import { loadJournal, stateAt } from "../state/actions";
import { NarrativePanel } from "./NarrativePanel";

/**
 * A session's journal as a timeline, for developers: every event with its sequence number, and the
 * session's state after any of them, rebuilt by the server exactly as the entity recovers it.
 */
export function ReplayView({ sessionId }: { sessionId: string | undefined }) {
  const read = journal.value;
  const at = journalState.value;
  return (
    <div class="replay">
      <header class="chat-head">
        <h1>Replay</h1>
        <span class="spacer" />
        <label class="admin-token">
          <span>Admin token <span class="muted">(optional)</span></span>
          <input type="password" autoComplete="off" value={adminToken.value}
            onInput={(e) => (adminToken.value = e.currentTarget.value)}
            onKeyDown={(e) => { if (e.key === "Enter" && sessionId) void loadJournal(sessionId); }} />
        </label>
      </header>
      {!sessionId && <p class="muted">Choose a session on the left to see its journal.</p>}
      {sessionId && !read && <p class="muted">Reading the journal…</p>}
      {sessionId && read && (
        <div class="replay-body">
          <ol class="timeline" aria-label="Journal events">
            {read.events.map((entry) => (
              <li key={entry.sequence_nr} class={at?.until === entry.sequence_nr ? "selected" : ""}>
                <button type="button" onClick={() => void stateAt(sessionId, entry.sequence_nr)}
                  aria-pressed={at?.until === entry.sequence_nr}>
                  <span class="seq">#{entry.sequence_nr}</span>
                  <span class="type">{entry.type}</span>
                  <time dateTime={entry.written_at}>{new Date(entry.written_at).toLocaleTimeString()}</time>
                  <span class="summary">{summary(entry.event)}</span>
                </button>
              </li>
            ))}
          </ol>
          <section class="state" aria-label="State">
            <h2>State after event #{at?.until ?? read.last_sequence_nr}</h2>
            <input type="range" min={1} max={Math.max(1, read.last_sequence_nr)} value={at?.until ?? read.last_sequence_nr}
              aria-label="Sequence number" onChange={(e) => void stateAt(sessionId, Number(e.currentTarget.value))} />
            <StateSummary state={at?.state ?? read.state} />
          </section>
        </div>
      )}
    </div>
  );
}

function StateSummary({ state }: { state: Record<string, unknown> }) {
  const messages = Array.isArray(state.messages) ? state.messages as { role: string; content: string }[] : [];
  return (
    <div>
      <p><strong>Status</strong> {String(state.status)} · <strong>Title</strong> {String(state.title ?? "—")} · {messages.length} messages</p>
      <ol class="replay-messages">
        {messages.map((m, i) => <li key={i}><strong>{m.role}</strong>: {m.content}</li>)}
      </ol>
      <NarrativePanel state={(state.narrative_state as Record<string, unknown> | null) ?? null} />
    </div>
  );
}

function summary(event: Record<string, unknown>): string {
  for (const key of ["message", "title", "reason", "code"]) {
    const value = event[key];
    if (typeof value === "string" && value !== "") return value.length > 80 ? `${value.slice(0, 80)}…` : value;
  }
  const outcome = event.outcome as { text?: string } | undefined;
  if (outcome && typeof outcome.text === "string") return outcome.text.slice(0, 80);
  return "";
}
