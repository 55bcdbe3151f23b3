/**
 * Per tab, as seed 004 asks: the visitor's id, the open session and whether the panel is open live
 * in session storage, so a reload keeps the conversation where it was and another tab starts its own.
 * The visitor id is random (128 bits): it is what keeps one visitor's session from another's under
 * the same public key.
 */
const VISITOR = "colloquy.widget.visitor";
const SESSION = "colloquy.widget.session";
const OPEN = "colloquy.widget.open";

export function visitorId(): string {
  let id = sessionStorage.getItem(VISITOR);
  if (!id) {
    id = crypto.randomUUID().replaceAll("-", "");
    sessionStorage.setItem(VISITOR, id);
  }
  return id;
}

export function storedSession(): string | null {
  return sessionStorage.getItem(SESSION);
}

export function storeSession(sessionId: string | null): void {
  if (sessionId) sessionStorage.setItem(SESSION, sessionId);
  else sessionStorage.removeItem(SESSION);
}

export function storedOpen(): boolean {
  return sessionStorage.getItem(OPEN) === "1";
}

export function storeOpen(open: boolean): void {
  if (open) sessionStorage.setItem(OPEN, "1");
  else sessionStorage.removeItem(OPEN);
}
