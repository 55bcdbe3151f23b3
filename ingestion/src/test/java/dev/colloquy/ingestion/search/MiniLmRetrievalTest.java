package dev.colloquy.ingestion.search;

import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.knowledge.RetrievalResult;
import dev.colloquy.ingestion.TestLimits;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.embed.MiniLmEmbeddingModel;
import dev.colloquy.ingestion.embed.SharedMiniLm;
import dev.colloquy.ingestion.parse.Fixtures;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End to end with the real in-process model: real files in, the right section out for a question. */
class MiniLmRetrievalTest {

  private static final String HANDBOOK = """
      # Working hours

      The office is open from 8 am to 6 pm on weekdays. Core hours are 10 am to 4 pm.

      # Holidays

      Every employee has 28 days of paid leave per year. Unused days can be carried over until March.

      # Expenses

      Travel costs are reimbursed within two weeks when the receipt is uploaded to the expense tool.

      # Security

      Laptops must be locked when unattended and passwords are changed every six months.
      """;

  @TempDir
  Path directory;

  @Test
  void hybridRetrievalFindsTheSectionThatAnswersTheQuestion() {
    MiniLmEmbeddingModel model = SharedMiniLm.model();
    try (LuceneVectorStore store = new LuceneVectorStore(directory, model.dimensions())) {
      IngestionPipeline pipeline = IngestionPipeline.create(TestLimits.defaults(), model);
      store.upsert("acme", pipeline.prepare(origin("doc-handbook", "handbook.md"), utf8(HANDBOOK)));
      store.upsert("acme", pipeline.prepare(origin("doc-policy", "policy.docx"), Fixtures.docx()));
      store.publish("acme", "doc-handbook", List.of());
      store.publish("acme", "doc-policy", List.of());
      HybridKnowledgeBase knowledge = new HybridKnowledgeBase(store, model, Runnable::run);

      assertThat(topSection(knowledge, "How many vacation days do I get?")).isEqualTo("Holidays");
      assertThat(topSection(knowledge, "When do I get my travel money back?")).isEqualTo("Expenses");
      assertThat(topSection(knowledge, "Can I return a laptop I bought?")).isEqualTo("Returns");
      assertThat(topSection(knowledge, "Are sale items refundable?")).isEqualTo("Exceptions");

      RetrievalResult unrelated = knowledge.searchNow("acme", "What is the boiling point of mercury?", 3);
      RetrievalResult related = knowledge.searchNow("acme", "How many days of paid leave per year?", 3);
      assertThat(related.confidence()).isGreaterThan(unrelated.confidence());
    }
  }

  private static String topSection(HybridKnowledgeBase knowledge, String question) {
    List<Passage> passages = knowledge.searchNow("acme", question, 3).passages();
    assertThat(passages).as(question).isNotEmpty();
    return passages.getFirst().section();
  }

  private static IngestionPipeline.Origin origin(String id, String fileName) {
    return new IngestionPipeline.Origin("acme", id, fileName, 1, Instant.parse("2026-11-01T00:00:00Z"));
  }
}
