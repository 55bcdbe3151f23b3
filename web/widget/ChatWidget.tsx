import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { ColloquyClient, ColloquyError } from "@colloquy/client";
import { applyEvent, newTurn, type TurnView } from "../src/state/turns";
import { renderMarkdown } from "../src/markdown";
import type { WidgetSettings } from "./settings";
import { storedSession, storeSession, visitorId } from "./visitor";

/**
 * The support widget of seed 004 §12: a launcher and a chat panel. The session starts with the first
 * message, answers stream in, closing the panel ends the session, and an escalation says that a
 * human agent takes over. It speaks the canonical API with the tenant's public key.
 */
export function ChatWidget({ settings }: { settings: WidgetSettings }) {
  const client = useMemo(() => new ColloquyClient({
    baseUrl: settings.server, credential: settings.apiKey, userId: visitorId(),
  }), [settings]);
  const [open, setOpen] = useState(false);
  const [turns, setTurns] = useState<TurnView[]>([]);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const session = useRef<string | null>(storedSession());
  const input = useRef<HTMLTextAreaElement>(null);
  const end = useRef<HTMLDivElement>(null);
  const escalated = turns.some((t) => t.escalation);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [turns]);

  async function send() {
    const message = text.trim();
    if (message === "" || busy) return;
    setText("");
    setBusy(true);
    const turnId = crypto.randomUUID();
    const update = (change: (turn: TurnView) => TurnView) =>
      setTurns((all) => all.map((t) => (t.turnId === turnId ? change(t) : t)));
    setTurns((all) => [...all, newTurn(turnId, message, [])]);
    try {
      if (!session.current) {
        session.current = (await client.createSession({ metadata: { channel: "widget" } })).session_id;
        storeSession(session.current);
      }
      for await (const event of client.startTurn(session.current, message, { turnId })) {
        update((turn) => applyEvent(turn, event));
      }
    } catch (error) {
      update((turn) => ({ ...turn, status: "failed", error: { code: "WIDGET", message: explain(error) } }));
      if (error instanceof ColloquyError && (error.code === "SESSION_NOT_FOUND" || error.code === "SESSION_CLOSED")) {
        session.current = null;
        storeSession(null);
      }
    } finally {
      setBusy(false);
    }
  }

  /** Closing the panel ends the session (seed 004): its summary goes to billing. */
  function close() {
    setOpen(false);
    const ending = session.current;
    session.current = null;
    storeSession(null);
    setTurns([]);
    if (ending) void client.closeSession(ending).catch(() => undefined);
  }

  return (
    <div class={`colloquy ${settings.position}`} style={`--primary: ${settings.primaryColor}`}>
      {open && (
        <section class="panel" role="dialog" aria-label={`Chat with ${settings.persona}`}>
          <header>
            <strong>{settings.persona}</strong>
            <button type="button" class="close" aria-label="Close the chat" onClick={close}>
              <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true"><path stroke="currentColor" stroke-width="2.5" d="M6 6l12 12M18 6L6 18" /></svg>
            </button>
          </header>
          <div class="messages" aria-live="polite">
            <p class="bubble agent">{settings.greeting}</p>
            {turns.map((turn) => (
              <div key={turn.turnId} class="turn" data-status={turn.status}>
                <p class="bubble user">{turn.question}</p>
                {turn.runs.map((run) => run.text !== "" && (
                  <div key={run.runId} class="bubble agent markdown"
                    dangerouslySetInnerHTML={{ __html: renderMarkdown(run.text) }} />
                ))}
                {(turn.status === "sending" || (turn.status === "streaming" && turn.runs.every((r) => r.text === ""))) && (
                  <p class="typing" aria-label={`${settings.persona} is typing`}><span /><span /><span /></p>
                )}
                {turn.status === "failed" && <p class="problem" role="alert">{turn.error?.message ?? "Something went wrong."}</p>}
              </div>
            ))}
            {escalated && <p class="escalation" role="status">Connecting you to a human agent...</p>}
            <div ref={end} />
          </div>
          <form onSubmit={(e) => { e.preventDefault(); void send(); }}>
            <textarea ref={input} rows={1} aria-label="Your message" placeholder="Type your message…" value={text}
              onInput={(e) => setText(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
                  e.preventDefault();
                  void send();
                } else if (e.key === "Escape") {
                  setOpen(false);
                }
              }} />
            <button type="submit" class="send" disabled={busy || text.trim() === ""} aria-label="Send">
              <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M3 20l18-8L3 4v6l12 2-12 2z" /></svg>
            </button>
          </form>
        </section>
      )}
      <button type="button" class="launcher" aria-expanded={open} aria-label={open ? "Hide the chat" : `Chat with ${settings.persona}`}
        onClick={() => setOpen(!open)}>
        {open ? <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true"><path stroke="currentColor" stroke-width="2.5" d="M6 6l12 12M18 6L6 18" /></svg> : <svg width="26" height="26" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M4 4h16v11H8l-4 4z" /></svg>}
      </button>
    </div>
  );
}

function explain(error: unknown): string {
  if (error instanceof ColloquyError) {
    if (error.code === "ORIGIN_NOT_ALLOWED") return "This chat is not available on this site.";
    if (error.status === 401) return "This chat is not set up correctly (its key was refused).";
    if (error.code === "RATE_LIMITED" || error.code === "QUOTA_EXCEEDED") return "Too many messages right now; please try again shortly.";
    return "Sorry, the message could not be sent. Please try again.";
  }
  return "The connection failed. Please check your network and try again.";
}
