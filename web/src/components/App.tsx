import { useEffect } from "preact/hooks";
import { chat, credential, drawerOpen, route } from "../state/store";
import { loadDocuments, loadJournal, newChat, openSession } from "../state/actions";
import { href } from "../router";
import { theme, nextTheme } from "../theme";
import { SignIn } from "./SignIn";
import { SessionList } from "./SessionList";
import { ChatView } from "./ChatView";
import { KnowledgeView } from "./KnowledgeView";
import { ReplayView } from "./ReplayView";
import { Notices } from "./Notices";
import { MenuIcon } from "./Icons";
import { signOut } from "../state/actions";

export function App() {
  const current = route.value;
  const signedIn = credential.value !== null;

  useEffect(() => {
    if (!signedIn) return;
    if (current.view === "chat") {
      if (current.sessionId) void openSession(current.sessionId);
      else if (chat.value) newChat();
    } else if (current.view === "knowledge") {
      void loadDocuments();
    } else if (current.view === "replay" && current.sessionId) {
      void loadJournal(current.sessionId);
    }
  }, [signedIn, current.view, "sessionId" in current ? current.sessionId : undefined]);

  if (!signedIn) {
    return (
      <>
        <SignIn />
        <Notices />
      </>
    );
  }
  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <header class="topbar">
        <button type="button" class="ghost drawer-toggle" aria-label="Sessions" aria-expanded={drawerOpen.value}
          onClick={() => (drawerOpen.value = !drawerOpen.value)}><MenuIcon /></button>
        <strong class="brand">Colloquy</strong>
        <nav aria-label="Views">
          <a href={href({ view: "chat" })} aria-current={current.view === "chat" ? "page" : undefined}>Chat</a>
          <a href={href({ view: "knowledge" })} aria-current={current.view === "knowledge" ? "page" : undefined}>Knowledge</a>
          <a href={href({ view: "replay", ...(chat.value ? { sessionId: chat.value.sessionId } : {}) })}
            aria-current={current.view === "replay" ? "page" : undefined}>Replay</a>
        </nav>
        <span class="spacer" />
        <button type="button" class="ghost" onClick={nextTheme} title="Theme: system, light or dark">
          Theme: {theme.value}
        </button>
        <button type="button" class="ghost" onClick={signOut}>Sign out</button>
      </header>
      <div class={`body view-${current.view}${drawerOpen.value ? " drawer-open" : ""}`}>
        {current.view !== "knowledge" && <SessionList />}
        {drawerOpen.value && <div class="backdrop" aria-hidden="true" onClick={() => (drawerOpen.value = false)} />}
        <main id="main" tabIndex={-1}>
          {current.view === "chat" && <ChatView />}
          {current.view === "knowledge" && <KnowledgeView />}
          {current.view === "replay" && <ReplayView sessionId={current.sessionId} />}
        </main>
      </div>
      <Notices />
    </div>
  );
}
