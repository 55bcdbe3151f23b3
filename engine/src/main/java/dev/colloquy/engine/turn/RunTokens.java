package dev.colloquy.engine.turn;

/**
 * Where one run's tokens go: straight into its turn's {@link Transcript}, from the model's own
 * thread. Once the run is closed (it ended, or its turn did) a token is dropped, so the run's text
 * is exactly what its token frames carried.
 */
final class RunTokens {

  private final Transcript transcript;
  private final int run;

  RunTokens(Transcript transcript, int run) {
    this.transcript = transcript;
    this.run = run;
  }

  /** Appends a token, unless the run no longer takes any or the turn's answer budget would pass. */
  Transcript.TokenTaken append(String text) {
    return transcript.token(run, text);
  }

  /** The text streamed so far. */
  String text() {
    return transcript.tokensOf(run);
  }

  /** Takes no token from now on; returns the text streamed, which is the run's text. */
  String close() {
    transcript.closeRun(run);
    return transcript.tokensOf(run);
  }
}
