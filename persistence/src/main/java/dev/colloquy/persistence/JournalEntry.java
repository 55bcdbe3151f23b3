package dev.colloquy.persistence;

import dev.colloquy.engine.session.ChatSession;
import java.time.Instant;

/** One journaled event of a session with its sequence number and write time. */
public record JournalEntry(long sequenceNr, Instant writtenAt, ChatSession.Event event) {}
