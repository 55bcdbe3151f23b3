package dev.colloquy.http.auth;

/** What authentication concluded: a principal, or the reason it refused. */
sealed interface Outcome {

  record Authenticated(Principal principal) implements Outcome {}

  record Refused(Refusal reason) implements Outcome {}

  static Outcome refused(Refusal reason) {
    return new Refused(reason);
  }

  static Outcome authenticated(Principal principal) {
    return new Authenticated(principal);
  }
}
