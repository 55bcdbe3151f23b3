package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.StreamEvent;
import java.util.List;

/**
 * The run whose tokens a seed dialect sends as the answer (its contracts have one answer per turn),
 * across a turn that another node ran again after its own was lost ({@code turn.restarted}). The
 * seeds' clients only append text, so an answer that was partly sent cannot be replaced: when the
 * restart supersedes tokens this stream already carried, the dialect ends it with its own error
 * ({@link #RESTARTED}) and sends nothing more; the finished answer is in the session's messages.
 * When none had been carried, the new attempt's run simply answers.
 */
final class AnsweringRun {

  /** The code of the error frame that ends a dialect's stream whose answer a restart superseded. */
  static final String RESTARTED = "TURN_RESTARTED";

  static final String RESTARTED_MESSAGE = "The server writing this answer was lost after part of it was sent;"
      + " the answer is being written again from the start and will be in the conversation's messages";

  private String runId;
  private boolean answered;
  private boolean superseded;

  void started(List<String> runIds) {
    runId = runIds.isEmpty() ? null : runIds.getFirst();
  }

  /** Whether the token is the answer's; the first one makes the answer partly sent. */
  boolean answers(StreamEvent.Token token) {
    boolean answers = token.runId().equals(runId);
    answered |= answers;
    return answers;
  }

  /** True when the restart supersedes text already sent: the dialect sends its error, then nothing. */
  boolean restarted(StreamEvent.Restarted restarted) {
    if (answered) {
      superseded = true;
      return true;
    }
    started(restarted.runIds());
    return false;
  }

  /** Whether the stream has ended with the restart's error and must send nothing more. */
  boolean superseded() {
    return superseded;
  }
}
