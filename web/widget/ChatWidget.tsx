import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { renderMarkdown } from "../src/markdown";
import type { WidgetSettings } from "./settings";
import { SupportApi, SupportError, type TranscriptLine } from "./support";
import { storedOpen, storedSession, storeOpen, storeSession, visitorId } from "./visitor";

/** One question and its answer; `earlier` ones come from the session's transcript after a reload. */
interface Exchange {
  key: string;
  question: string | null;
  answer: string;
  status: "sending" | "streaming" | "completed" | "failed" | "earlier";
  problem?: string;
}

/**
 * The support widget of seed 004 §12, speaking that seed's API: the session starts with the first
 * message (`POST /v1/session/start`), answers stream in (`POST /v1/chat/message`, `"stream": true`),
 * closing the panel ends the session (`POST /v1/session/{id}/end`), and an answer that says
 * `escalation_required` brings the notice that a human agent takes over. The session id lives in the
 * tab's session storage, so after a reload the panel shows the conversation again from its transcript.
 */
export function ChatWidget({ settings }: { settings: WidgetSettings }) {
  const api = useMemo(() => new SupportApi(settings.server, settings.apiKey, visitorId()), [settings]);
  const [open, setOpen] = useState(storedOpen);
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  const [escalated, setEscalated] = useState(false);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const session = useRef<string | null>(storedSession());
  const transcriptRead = useRef(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    storeOpen(open);
    if (open) input.current?.focus();
    if (open && session.current && !transcriptRead.current) {
      transcriptRead.current = true;
      void showEarlier(session.current);
    }
  }, [open]);
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [exchanges, escalated]);

  /** The tab's session from before a reload: its messages come first, before anything sent since. */
  async function showEarlier(sessionId: string) {
    try {
      const earlier = pairUp(await api.transcript(sessionId));
      setExchanges((now) => [...earlier, ...now]);
    } catch (error) {
      if (error instanceof SupportError && error.code === "INVALID_SESSION" && session.current === sessionId) {
        forgetSession();
      }
    }
  }

  async function send() {
    const message = text.trim();
    if (message === "" || busy) return;
    setText("");
    setBusy(true);
    const key = crypto.randomUUID();
    const update = (change: Partial<Exchange> | ((e: Exchange) => Partial<Exchange>)) =>
      setExchanges((all) => all.map((e) => (e.key === key ? { ...e, ...(typeof change === "function" ? change(e) : change) } : e)));
    setExchanges((all) => [...all, { key, question: message, answer: "", status: "sending" }]);
    try {
      await ask(message, update);
    } catch (error) {
      if (error instanceof SupportError && error.code === "INVALID_SESSION" && session.current) {
        // The tab's session ended meanwhile (idle, or elsewhere): the question goes to a new one.
        forgetSession();
        try {
          await ask(message, update);
        } catch (again) {
          update({ status: "failed", problem: explain(again) });
        }
      } else {
        update({ status: "failed", problem: explain(error) });
      }
    } finally {
      setBusy(false);
    }
  }

  async function ask(message: string, update: (change: Partial<Exchange> | ((e: Exchange) => Partial<Exchange>)) => void) {
    if (!session.current) {
      session.current = (await api.start()).session_id;
      transcriptRead.current = true;
      storeSession(session.current);
    }
    for await (const frame of api.message(session.current, message)) {
      if (!frame.done) {
        update((e) => ({ status: "streaming", answer: e.answer + frame.delta }));
      } else if ("metadata" in frame) {
        update({ status: "completed" });
        if (frame.metadata.escalation_required) setEscalated(true);
      } else {
        update({ status: "failed", problem: "Sorry, no answer could be given. Please try again." });
      }
    }
  }

  function forgetSession() {
    session.current = null;
    storeSession(null);
    setEscalated(false);
  }

  /** Closing the panel ends the session (seed 004): its summary goes to billing. */
  function close() {
    setOpen(false);
    const ending = session.current;
    forgetSession();
    transcriptRead.current = false;
    setExchanges([]);
    if (ending) void api.end(ending).catch(() => undefined);
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
            {exchanges.map((exchange) => (
              <div key={exchange.key} class="turn" data-status={exchange.status}>
                {exchange.question !== null && <p class="bubble user">{exchange.question}</p>}
                {exchange.answer !== "" && (
                  <div class="bubble agent markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(exchange.answer) }} />
                )}
                {(exchange.status === "sending" || (exchange.status === "streaming" && exchange.answer === "")) && (
                  <p class="typing" aria-label={`${settings.persona} is typing`}><span /><span /><span /></p>
                )}
                {exchange.problem && <p class="problem" role="alert">{exchange.problem}</p>}
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

/** A transcript as the exchanges the panel shows: each visitor message with the answers after it. */
function pairUp(lines: TranscriptLine[]): Exchange[] {
  const exchanges: Exchange[] = [];
  lines.forEach((line, i) => {
    const last = exchanges.at(-1);
    if (line.role === "user" || !last) {
      exchanges.push({ key: `earlier-${i}`, question: line.role === "user" ? line.content : null,
        answer: line.role === "user" ? "" : line.content, status: "earlier" });
    } else {
      last.answer = last.answer === "" ? line.content : `${last.answer}\n\n${line.content}`;
    }
  });
  return exchanges;
}

function explain(error: unknown): string {
  if (error instanceof SupportError) {
    if (error.code === "ORIGIN_NOT_ALLOWED") return "This chat is not available on this site.";
    if (error.status === 401) return "This chat is not set up correctly (its key was refused).";
    if (error.code === "RATE_LIMITED" || error.code === "QUOTA_EXCEEDED") return "Too many messages right now; please try again shortly.";
    return "Sorry, the message could not be sent. Please try again.";
  }
  return "The connection failed. Please check your network and try again.";
}
