import { useEffect, useRef, useState } from "preact/hooks";
import { chat } from "../state/store";
import { Composer } from "./Composer";
import { NarrativePanel } from "./NarrativePanel";
import { ReconnectBanner } from "./ReconnectBanner";
import { TurnItem } from "./TurnItem";

/** The conversation: its turns, the composer, and the narrative state beside them. */
export function ChatView() {
  const current = chat.value;
  // On a phone the panel would push the conversation off the screen: it starts closed there.
  const [showState, setShowState] = useState(() => window.matchMedia("(min-width: 761px)").matches);
  const end = useRef<HTMLDivElement>(null);
  const turns = current?.turns ?? [];
  const last = turns.at(-1);

  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [turns.length, last?.runs.map((r) => r.text.length).join()]);

  return (
    <div class={`chat${showState ? " with-state" : ""}`}>
      <div class="conversation">
        <header class="chat-head">
          <h1>{current?.title ?? "New chat"}</h1>
          {current && <span class={`status ${current.status}`}>{current.status}</span>}
          <span class="spacer" />
          <button type="button" class="ghost" aria-pressed={showState} onClick={() => setShowState(!showState)}>
            Narrative state
          </button>
        </header>
        <ReconnectBanner />
        <div class="turns" aria-live="polite">
          {current?.loading && <p class="muted">Loading…</p>}
          {!current && <p class="muted welcome">Ask a question to start a chat. Upload documents under Knowledge to ground the answers in them.</p>}
          {turns.map((turn) => <TurnItem key={turn.turnId} turn={turn} />)}
          <div ref={end} />
        </div>
        <Composer />
      </div>
      {showState && <NarrativePanel state={current?.narrativeState ?? null} />}
    </div>
  );
}
