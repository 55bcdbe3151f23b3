/**
 * Per tab, as seed 004 asks: the visitor's id and the open session live in session storage, so a
 * reload keeps the conversation and another tab starts its own. The visitor id is random (128 bits):
 * it is what keeps one visitor's session from another's under the same public key.
 */
const VISITOR = "colloquy.widget.visitor";
const SESSION = "colloquy.widget.session";

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
