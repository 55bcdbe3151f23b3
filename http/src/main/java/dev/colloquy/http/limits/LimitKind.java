package dev.colloquy.http.limits;

/** What a request is, for the limits: each kind counts against its own limits and those before it. */
public enum LimitKind {
  /** Any request: requests per minute. */
  REQUEST,
  /** Opens a session: requests per minute and open sessions per tenant. */
  SESSION,
  /** Runs a turn and answers in one piece: requests and turns per minute, the monthly token budget. */
  TURN,
  /** Runs or joins a turn as a stream: as a turn, and one of the tenant's concurrent streams while open. */
  STREAM
}
