import { useState } from "preact/hooks";
import type { SessionSummaryRow } from "@colloquy/client";
import { chat, drawerOpen, route, sessionFilter, sessions, sessionsCursor, sessionsLoading } from "../state/store";
import { deleteSession, loadSessions, renameSession, searchSessions } from "../state/actions";
import { href, navigate } from "../router";
import { PencilIcon, TrashIcon } from "./Icons";

/**
 * The tenant's (or user's) sessions, most recently active first, a page at a time; the search box
 * asks the server for the titles that contain its text.
 */
export function SessionList() {
  const replay = route.value.view === "replay";
  const searching = sessionFilter.value.trim() !== "";
  return (
    <aside class="sidebar" aria-label="Sessions">
      <div class="sidebar-head">
        <button type="button" onClick={() => { drawerOpen.value = false; navigate({ view: "chat" }); }}>
          + New chat
        </button>
        <input type="search" placeholder="Search titles" aria-label="Search sessions by title" maxLength={200}
          value={sessionFilter.value} onInput={(e) => searchSessions(e.currentTarget.value)} />
      </div>
      <ul class="sessions">
        {sessions.value.map((session) => (
          <SessionItem key={session.session_id} session={session} replay={replay} />
        ))}
        {sessions.value.length === 0 && !sessionsLoading.value && (
          <li class="muted empty">{searching ? "No session title matches" : "No sessions yet"}</li>
        )}
      </ul>
      {sessionsCursor.value && (
        <button type="button" class="secondary more" disabled={sessionsLoading.value} onClick={() => void loadSessions(false)}>
          {sessionsLoading.value ? "Loading…" : "Load more"}
        </button>
      )}
    </aside>
  );
}

function SessionItem({ session, replay }: { session: SessionSummaryRow; replay: boolean }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(session.title ?? "");
  const current = route.value;
  const selected = "sessionId" in current ? current.sessionId === session.session_id
    : chat.value?.sessionId === session.session_id;
  const target = replay ? { view: "replay" as const, sessionId: session.session_id }
    : { view: "chat" as const, sessionId: session.session_id };

  if (editing) {
    return (
      <li class="session editing">
        <form onSubmit={(e) => { e.preventDefault(); setEditing(false); void renameSession(session.session_id, title.trim()); }}>
          <input type="text" aria-label="New title" value={title} maxLength={200} autoFocus required
            onInput={(e) => setTitle(e.currentTarget.value)}
            onKeyDown={(e) => { if (e.key === "Escape") setEditing(false); }} />
          <button type="submit">Save</button>
        </form>
      </li>
    );
  }
  return (
    <li class={`session${selected ? " selected" : ""}`}>
      <a href={href(target)} onClick={() => (drawerOpen.value = false)} aria-current={selected ? "page" : undefined}>
        <span class="title">{session.title ?? "New chat"}</span>
        <span class="meta">
          <span class={`status ${session.status}`}>{session.status}</span>
          <time dateTime={session.last_activity_at}>{ago(session.last_activity_at)}</time>
          <span>{session.turn_count} turn{session.turn_count === 1 ? "" : "s"}</span>
        </span>
      </a>
      <span class="actions">
        <button type="button" class="ghost" aria-label={`Rename ${session.title ?? "session"}`} title="Rename"
          onClick={() => { setTitle(session.title ?? ""); setEditing(true); }}><PencilIcon /></button>
        <button type="button" class="ghost" aria-label={`Delete ${session.title ?? "session"}`} title="Delete"
          onClick={() => { if (confirm(`Delete “${session.title ?? "New chat"}” and its history?`)) void deleteSession(session.session_id); }}>
          <TrashIcon />
        </button>
      </span>
    </li>
  );
}

function ago(iso: string): string {
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}
