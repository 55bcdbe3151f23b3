import { signal } from "@preact/signals";
import type { Journal, KnowledgeDocument, SessionSummaryRow } from "@colloquy/client";
import type { TurnView } from "./turns";

/**
 * Everything the app shows, in one place. Components read these signals and re-render when they
 * change; only the functions in `actions.ts` write them.
 */

export interface Credential {
  /** A tenant API key, a JWT, or the development key. */
  token: string;
  /** With a tenant key: the end user to act for (`X-User-Id`). */
  userId?: string;
}

export interface ChatState {
  sessionId: string;
  title: string | null;
  status: string;
  turns: TurnView[];
  narrativeState: Record<string, unknown> | null;
  loading: boolean;
}

export interface Connection {
  state: "connected" | "reconnecting" | "resumed";
  attempt?: number;
  lastEventId?: number;
}

export interface Upload {
  id: number;
  filename: string;
  sent: number;
  total: number;
  state: "uploading" | "accepted" | "failed";
  error?: string;
}

export interface Notice {
  id: number;
  kind: "error" | "info";
  text: string;
}

export const credential = signal<Credential | null>(null);

export const sessions = signal<SessionSummaryRow[]>([]);
export const sessionsCursor = signal<string | null>(null);
export const sessionsLoading = signal(false);
/** The sidebar's title search; the server lists only the sessions whose title contains it. */
export const sessionFilter = signal("");

export const chat = signal<ChatState | null>(null);
/** The running turn's stop control; null when no turn streams. */
export const running = signal<{ turnId: string; stop: AbortController } | null>(null);
export const connection = signal<Connection>({ state: "connected" });
/** Models to fan out to; empty: the tenant's default. */
export const chosenModels = signal<string[]>([]);
export const knownModels = signal<string[]>([]);

export const documents = signal<KnowledgeDocument[]>([]);
export const uploads = signal<Upload[]>([]);

export const journal = signal<Journal | null>(null);
export const journalState = signal<{ until: number; state: Record<string, unknown> } | null>(null);
/** The operator's token for reading any session's journal; the signed-in credential when empty. */
export const adminToken = signal("");

export const notices = signal<Notice[]>([]);
/** On a phone the session list is a drawer. */
export const drawerOpen = signal(false);
export const route = signal<Route>({ view: "chat" });

export type Route =
  | { view: "chat"; sessionId?: string }
  | { view: "knowledge" }
  | { view: "replay"; sessionId?: string };
