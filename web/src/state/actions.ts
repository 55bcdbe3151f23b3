import { ColloquyClient, ColloquyError, type Passage } from "@colloquy/client";
import {
  adminToken, chat, chosenModels, connection, credential, documents, journal, journalState, knownModels, notices,
  running, sessionFilter, sessions, sessionsCursor, sessionsLoading, uploads, type Credential, type Upload,
} from "./store";
import { applyEvent, newTurn, turnsFromMessages, type TurnView } from "./turns";

/** The only code that writes the store: each user action as one function. */

const STORAGE_KEY = "colloquy.credential";
const PAGE_SIZE = 20;
/** How long the search box waits for typing to pause before it asks the server. */
const SEARCH_PAUSE_MS = 250;
/** Pauses between reloads of the session list while it catches up with a turn: about 8 s in all. */
const LIST_CATCH_UP_PAUSES_MS = [250, 500, 1000, 2000, 4000];
let client = new ColloquyClient();
let noticeIds = 0;
let uploadIds = 0;

// ---- signing in ----

export function restoreCredential(): void {
  const stored = sessionStorage.getItem(STORAGE_KEY);
  if (stored) {
    try {
      useCredential(JSON.parse(stored) as Credential);
    } catch {
      sessionStorage.removeItem(STORAGE_KEY);
    }
  }
}

/** Checks the credential against the server before keeping it (in this tab's session storage only). */
export async function signIn(next: Credential): Promise<string | null> {
  const candidate = new ColloquyClient({ credential: next.token, userId: next.userId || undefined });
  try {
    await candidate.listSessions({ limit: 1 });
  } catch (error) {
    return describe(error);
  }
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  useCredential(next);
  return null;
}

export function signOut(): void {
  running.value?.stop.abort();
  sessionStorage.removeItem(STORAGE_KEY);
  credential.value = null;
  sessions.value = [];
  sessionFilter.value = "";
  chat.value = null;
  documents.value = [];
  journal.value = null;
}

/** The development key, offered only by a development server to a browser on the same machine. */
export async function fetchDevKey(): Promise<string | null> {
  try {
    const response = await fetch("/web/dev-key");
    if (!response.ok) return null;
    const body = (await response.json()) as { api_key?: string };
    return body.api_key ?? null;
  } catch {
    return null;
  }
}

function useCredential(next: Credential): void {
  credential.value = next;
  client = new ColloquyClient({ credential: next.token, userId: next.userId || undefined });
  void loadSessions(true);
  void loadModels();
}

async function loadModels(): Promise<void> {
  try {
    const config = await client.config();
    const models = [config.default_model, ...((config.fan_out_models as string[] | undefined) ?? [])]
      .filter((m): m is string => typeof m === "string" && m.length > 0);
    knownModels.value = [...new Set(models)];
  } catch {
    knownModels.value = [];
  }
}

// ---- sessions ----

let listing = 0;
let searchTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * The first page of the list again, or the next one ("Load more"), with the search in effect. A new
 * first page supersedes any page still on its way, so a slow answer to an older search never shows.
 */
export async function loadSessions(fromStart: boolean): Promise<void> {
  if (!fromStart && sessionsLoading.value) return;
  const request = ++listing;
  const q = sessionFilter.value.trim();
  sessionsLoading.value = true;
  try {
    const page = await client.listSessions({
      limit: PAGE_SIZE, ...(q === "" ? {} : { q }),
      ...(fromStart || !sessionsCursor.value ? {} : { cursor: sessionsCursor.value }),
    });
    if (request !== listing) return;
    sessions.value = fromStart ? page.sessions : [...sessions.value, ...page.sessions];
    sessionsCursor.value = page.next_cursor;
  } catch (error) {
    if (request === listing) notify("error", `The session list could not be read: ${describe(error)}`);
  } finally {
    if (request === listing) sessionsLoading.value = false;
  }
}

/** The search box: the server searches the titles once typing pauses. */
export function searchSessions(text: string): void {
  sessionFilter.value = text;
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => void loadSessions(true), SEARCH_PAUSE_MS);
}

export async function openSession(sessionId: string): Promise<void> {
  if (chat.value?.sessionId === sessionId) return;
  running.value?.stop.abort();
  chat.value = { sessionId, title: null, status: "open", turns: [], narrativeState: null, loading: true };
  try {
    const session = await client.getSession(sessionId);
    if (chat.value?.sessionId !== sessionId) return;
    chat.value = {
      sessionId, title: session.title, status: session.status, turns: turnsFromMessages(session.messages),
      narrativeState: session.narrative_state, loading: false,
    };
    if (session.running_turn_id) {
      void follow(sessionId, session.running_turn_id);
    }
  } catch (error) {
    chat.value = null;
    notify("error", `The session could not be opened: ${describe(error)}`);
  }
}

export function newChat(): void {
  running.value?.stop.abort();
  chat.value = null;
}

export async function renameSession(sessionId: string, title: string): Promise<void> {
  try {
    const session = await client.renameSession(sessionId, title);
    sessions.value = sessions.value.map((s) => (s.session_id === sessionId ? { ...s, title: session.title } : s));
    if (chat.value?.sessionId === sessionId) chat.value = { ...chat.value, title: session.title };
  } catch (error) {
    notify("error", `The session could not be renamed: ${describe(error)}`);
  }
}

export async function deleteSession(sessionId: string): Promise<void> {
  try {
    await client.deleteSession(sessionId);
    sessions.value = sessions.value.filter((s) => s.session_id !== sessionId);
    if (chat.value?.sessionId === sessionId) chat.value = null;
  } catch (error) {
    notify("error", `The session could not be deleted: ${describe(error)}`);
  }
}

// ---- turns ----

/** Sends a message: opens a session first when there is none, then streams the turn. */
export async function send(message: string, opened: (sessionId: string) => void): Promise<void> {
  if (running.value || message.trim() === "") return;
  let sessionId = chat.value?.sessionId;
  if (!sessionId) {
    try {
      sessionId = (await client.createSession()).session_id;
    } catch (error) {
      notify("error", `A new chat could not be opened: ${describe(error)}`);
      return;
    }
    chat.value = { sessionId, title: null, status: "open", turns: [], narrativeState: null, loading: false };
    opened(sessionId);
  }
  const turnId = crypto.randomUUID();
  const models = chosenModels.value;
  updateTurns(sessionId, (turns) => [...turns, newTurn(turnId, message, models)]);
  const stop = new AbortController();
  running.value = { turnId, stop };
  await consume(sessionId, turnId, stop, client.startTurn(sessionId, message, {
    turnId, signal: stop.signal, cancelOnAbort: false, ...(models.length > 0 ? { models } : {}), onReconnect: reconnecting,
  }));
}

/** Stop: the turn is cancelled on the server; its stream ends with `turn.cancelled`. */
export function stop(): void {
  const current = running.value;
  const sessionId = chat.value?.sessionId;
  if (!current || !sessionId) return;
  client.cancelTurn(sessionId, current.turnId).catch((error) => notify("error", `Stop failed: ${describe(error)}`));
}

/** Takes up a turn that was already running when its session was opened. */
async function follow(sessionId: string, turnId: string): Promise<void> {
  const existing = chat.value?.turns.find((t) => t.turnId === turnId);
  if (!existing) {
    updateTurns(sessionId, (turns) => [...turns, newTurn(turnId, "", [])]);
  } else {
    updateTurns(sessionId, (turns) => turns.map((t) => (t.turnId === turnId ? { ...t, runs: [], status: "streaming" } : t)));
  }
  const stop = new AbortController();
  running.value = { turnId, stop };
  await consume(sessionId, turnId, stop, client.joinTurn(sessionId, turnId, { signal: stop.signal, onReconnect: reconnecting }));
}

async function consume(sessionId: string, turnId: string, stop: AbortController,
  events: AsyncIterable<Parameters<typeof applyEvent>[1]>): Promise<void> {
  connection.value = { state: "connected" };
  try {
    for await (const event of events) {
      if (connection.value.state === "reconnecting") {
        connection.value = { state: "resumed", lastEventId: connection.value.lastEventId };
      }
      updateTurns(sessionId, (turns) => turns.map((t) => (t.turnId === turnId ? applyEvent(t, event) : t)));
    }
    await refreshAfterTurn(sessionId);
  } catch (error) {
    if (!stop.signal.aborted) {
      updateTurns(sessionId, (turns) => turns.map((t) => (t.turnId === turnId && (t.status === "streaming" || t.status === "sending")
        ? { ...t, status: "failed", error: { code: codeOf(error), message: describe(error) } } : t)));
      notify("error", describe(error));
    }
  } finally {
    if (running.value?.stop === stop) running.value = null;
    if (connection.value.state === "reconnecting") connection.value = { state: "connected" };
  }
}

function reconnecting(info: { attempt: number; lastEventId: number | undefined }): void {
  connection.value = { state: "reconnecting", attempt: info.attempt, ...(info.lastEventId === undefined ? {} : { lastEventId: info.lastEventId }) };
}

/** The title, narrative state and list entry change with each turn. */
async function refreshAfterTurn(sessionId: string): Promise<void> {
  const turns = chat.value?.sessionId === sessionId ? chat.value.turns.length : 0;
  try {
    const session = await client.getSession(sessionId);
    if (chat.value?.sessionId === sessionId) {
      chat.value = { ...chat.value, title: session.title, status: session.status, narrativeState: session.narrative_state };
    }
  } catch {
    // The turn itself is shown already; the side panel keeps its last state.
  }
  void refreshListUntilItHas(sessionId, turns);
}

/**
 * The session list is read from tables that follow the journal a moment behind (about a second, more on
 * a busy node), so one reload right after a turn often still shows the chat as it was. Reload a few
 * times, backing off, until the chat's entry counts the turn; then stop, whatever the list says.
 */
async function refreshListUntilItHas(sessionId: string, turns: number): Promise<void> {
  for (const pause of LIST_CATCH_UP_PAUSES_MS) {
    await loadSessions(true);
    const entry = sessions.value.find((s) => s.session_id === sessionId);
    if (entry !== undefined && entry.turn_count >= turns) return;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  await loadSessions(true);
}

function updateTurns(sessionId: string, change: (turns: TurnView[]) => TurnView[]): void {
  if (chat.value?.sessionId === sessionId) {
    chat.value = { ...chat.value, turns: change(chat.value.turns) };
  }
}

// ---- knowledge ----

export async function loadDocuments(): Promise<void> {
  try {
    documents.value = await client.listDocuments();
    void pollProcessing();
  } catch (error) {
    notify("error", `The documents could not be listed: ${describe(error)}`);
  }
}

export async function upload(file: File): Promise<void> {
  const id = ++uploadIds;
  const change = (patch: (upload: Upload) => Partial<Upload>) => {
    uploads.value = uploads.value.map((u) => (u.id === id ? { ...u, ...patch(u) } : u));
  };
  uploads.value = [...uploads.value, { id, filename: file.name, sent: 0, total: file.size, state: "uploading" }];
  try {
    await client.uploadDocument(file, file.name, { onProgress: (sent, total) => change(() => ({ sent, total })) });
    change((u) => ({ state: "accepted", sent: u.total }));
    await loadDocuments();
  } catch (error) {
    change(() => ({ state: "failed", error: describe(error) }));
  }
}

let polling = false;

/** Until every document is ready or failed, the list is read again every second. */
async function pollProcessing(): Promise<void> {
  if (polling) return;
  polling = true;
  try {
    while (documents.value.some((d) => d.status !== "ready" && d.status !== "failed")) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await loadDocuments();
    }
  } finally {
    polling = false;
  }
}

export async function deleteDocument(documentId: string): Promise<void> {
  try {
    await client.deleteDocument(documentId);
    documents.value = documents.value.filter((d) => d.id !== documentId);
  } catch (error) {
    notify("error", `The document could not be deleted: ${describe(error)}`);
  }
}

/** The text of the passage a citation names; it is read when the citation is opened. */
export function readPassage(documentId: string, chunkIndex: number): Promise<Passage> {
  return client.passage(documentId, chunkIndex);
}

export function dismissUpload(id: number): void {
  uploads.value = uploads.value.filter((u) => u.id !== id);
}

// ---- replay ----

function journalClient(): ColloquyClient {
  return adminToken.value.trim() === "" ? client : new ColloquyClient({ credential: adminToken.value.trim() });
}

export async function loadJournal(sessionId: string): Promise<void> {
  journal.value = null;
  journalState.value = null;
  try {
    const read = await journalClient().journal(sessionId);
    journal.value = read;
    journalState.value = { until: read.last_sequence_nr, state: read.state };
  } catch (error) {
    notify("error", `The journal could not be read: ${describe(error)}`);
  }
}

/** The session as it was after event `until`, rebuilt by the server from the journal. */
export async function stateAt(sessionId: string, until: number): Promise<void> {
  try {
    const read = await journalClient().journal(sessionId, until);
    journalState.value = { until, state: read.state };
  } catch (error) {
    notify("error", `The state at ${until} could not be read: ${describe(error)}`);
  }
}

// ---- notices ----

export function notify(kind: "error" | "info", text: string): void {
  const id = ++noticeIds;
  notices.value = [...notices.value, { id, kind, text }];
  setTimeout(() => dismiss(id), 8000);
}

export function dismiss(id: number): void {
  notices.value = notices.value.filter((n) => n.id !== id);
}

export function describe(error: unknown): string {
  if (error instanceof ColloquyError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

function codeOf(error: unknown): string {
  return error instanceof ColloquyError ? error.code : "NETWORK";
}
