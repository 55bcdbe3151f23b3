package dev.colloquy.persistence.readside;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** The Writing Room chats (sessions opened with a character) of a tenant or one of its users, from the read side. */
public interface ChatListing {

  /** Most recently active first, at most {@code limit}; never deleted chats. */
  CompletionStage<List<ChatRow>> chats(String tenantId, Optional<String> userId, int limit);
}
