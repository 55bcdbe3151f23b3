package dev.colloquy.http.auth;

/** What authentication concluded: a principal, the reason it refused, or that it could not tell. */
sealed interface Outcome {

  record Authenticated(Principal principal) implements Outcome {}

  record Refused(Refusal reason) implements Outcome {}

  /** The key store could not be read and this node never saw the key: neither refused nor let in. */
  record Unavailable() implements Outcome {}

  static Outcome refused(Refusal reason) {
    return new Refused(reason);
  }

  static Outcome authenticated(Principal principal) {
    return new Authenticated(principal);
  }
}
