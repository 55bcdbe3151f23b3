package dev.colloquy.engine;

import java.util.concurrent.CompletionStage;

/**
 * Removes what a deleted session leaves in storage: every journal event before its deletion marker
 * and every snapshot. Only a prefix of the journal is removed, never a range in the middle.
 */
public interface JournalPurger {

  CompletionStage<Void> purge(String persistenceId, long beforeSequenceNr);
}
