package dev.colloquy.persistence;

import java.util.List;
import java.util.concurrent.CompletionStage;

/** Read access to one session's journal, oldest event first, up to a sequence number. */
public interface SessionJournal {

  CompletionStage<List<JournalEntry>> read(String sessionId, long untilSequenceNr);
}
