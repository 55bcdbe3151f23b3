package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/**
 * One of the agent's own model calls in a turn, besides the runs that answer: which step made it
 * ({@link #ROUTING}, {@link #EXTRACTION}, …), on which provider and model, and what it used. Journaled
 * with the turn's {@link AgentTrace}, so that the turn's usage, the session's totals and its bill count
 * it beside the runs'. A call that failed or timed out has no usage reported and is not listed.
 */
public record AgentCall(String step, String provider, String model, Usage usage) implements CborSerializable {

  public static final String ROUTING = "routing";
  public static final String EXTRACTION = "extraction";
  /** The message translated into the tenant's language; the answer's translation back is part of its run. */
  public static final String TRANSLATION = "translation";
  /** The rolling summary of the conversation a long session's prompt no longer holds. */
  public static final String SUMMARY = "summary";
  /** The narrative gap sub-agent's call. */
  public static final String GAP_DETECTION = "gap_detection";

  public AgentCall {
    usage = usage == null ? Usage.NONE : usage;
  }
}
