import { connection } from "../state/store";

/** The connection dropped while an answer streamed: say so, and say when it is back. */
export function ReconnectBanner() {
  const state = connection.value;
  if (state.state === "connected") return null;
  return (
    <div class={`reconnect ${state.state}`} role="status" aria-live="polite">
      {state.state === "reconnecting"
        ? `Connection lost — reconnecting (attempt ${state.attempt ?? 1})${state.lastEventId !== undefined ? `, resuming after event ${state.lastEventId}` : ""}…`
        : `Reconnected — resumed after event ${state.lastEventId ?? 0}, nothing missed.`}
    </div>
  );
}
