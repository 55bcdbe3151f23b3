package dev.colloquy.ingestion.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The chunk payload as JSON with the field names of seed 004 §6.3 (snake_case), for stores that keep it as a blob. */
public final class ChunkJson {

  private static final ObjectMapper JSON = new ObjectMapper()
      .registerModule(new JavaTimeModule())
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private ChunkJson() {}

  public static byte[] write(KnowledgeChunk chunk) {
    try {
      return JSON.writeValueAsBytes(chunk);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static KnowledgeChunk read(byte[] json) {
    try {
      return JSON.readValue(json, KnowledgeChunk.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
