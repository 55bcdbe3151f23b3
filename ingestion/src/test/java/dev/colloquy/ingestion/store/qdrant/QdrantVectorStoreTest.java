package dev.colloquy.ingestion.store.qdrant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorName;
import dev.colloquy.ingestion.store.VectorStore;
import dev.colloquy.ingestion.store.VectorStoreContract;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract against {@link FakeQdrantServer}, a fake standing in for Qdrant (which cannot be
 * installed here; the real one runs in docker-compose). One fake for the class, a fresh collection per
 * test; reopening the store reconnects to the same collection, as a restart would.
 */
class QdrantVectorStoreTest extends VectorStoreContract {

  private static final String API_KEY = "fake-api-key";
  private static final AtomicInteger COLLECTIONS = new AtomicInteger();
  private static final float[] X = {1, 0, 0, 0};
  private static final float[] Y = {0, 1, 0, 0};
  private static final float[] Z = {0, 0, 1, 0};

  private static FakeQdrantServer qdrant;

  private String collection;

  @BeforeAll
  static void startFakeQdrant() {
    qdrant = FakeQdrantServer.start(API_KEY);
  }

  @AfterAll
  static void stopFakeQdrant() {
    qdrant.close();
  }

  @BeforeEach
  void freshCollection() {
    collection = "colloquy_chunks_" + COLLECTIONS.incrementAndGet();
  }

  @Override
  protected VectorStore open(Path directory) {
    return connect(DIMENSIONS);
  }

  @Test
  void identicalChunksOfTwoTenantsNeverReachEachOther() {
    store().upsert("acme", List.of(twin("acme")));
    store().upsert("globex", List.of(twin("globex")));
    store().publish("acme", "doc-1", List.of());

    assertThat(store().count("acme", "doc-1")).isEqualTo(1);
    assertThat(store().count("globex", "doc-1")).isEqualTo(1);
    assertThat(store().searchDense("globex", VectorName.TEXT, X, 10)).isEmpty();
    assertThat(store().searchText("globex", "shared pricing", 10)).isEmpty();

    store().publish("globex", "doc-1", List.of());

    for (String tenant : List.of("acme", "globex")) {
      for (VectorName vector : VectorName.values()) {
        assertThat(store().searchDense(tenant, vector, vectorOf(vector), 10)).singleElement()
            .extracting(hit -> hit.chunk().tenantId()).isEqualTo(tenant);
      }
      assertThat(store().searchText(tenant, "shared pricing", 10)).singleElement()
          .extracting(hit -> hit.chunk().tenantId()).isEqualTo(tenant);
    }

    store().unpublish("acme", "doc-1");

    assertThat(store().searchDense("acme", VectorName.TEXT, X, 10)).isEmpty();
    assertThat(store().searchDense("globex", VectorName.TEXT, X, 10)).extracting(hit -> hit.chunk().tenantId()).containsExactly("globex");

    store().delete("globex", "doc-1");

    assertThat(store().count("globex", "doc-1")).isZero();
    assertThat(store().count("acme", "doc-1")).isEqualTo(1);
  }

  @Test
  void textScoresAreBm25WithTheTenantsOwnDocumentFrequencies() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "Invoices are sent monthly.", "Billing"), X, X, X),
        embedded(chunk("acme", "doc-1", 1, "Invoices can be paid by card.", "Billing"), Y, Y, Y)));
    store().publish("acme", "doc-1", List.of());
    List<ScoredChunk> before = store().searchText("acme", "invoices monthly", 5);

    store().upsert("globex", List.of(
        embedded(chunk("globex", "doc-1", 0, "Monthly monthly monthly report.", "Reports"), Z, Z, Z)));
    store().publish("globex", "doc-1", List.of());

    assertThat(before).extracting(hit -> hit.chunk().chunkIndex()).containsExactly(0, 1);
    assertThat(store().searchText("acme", "invoices monthly", 5)).extracting(ScoredChunk::score)
        .containsExactlyElementsOf(before.stream().map(ScoredChunk::score).toList());
  }

  @Test
  void createsOneCollectionWithNamedVectorsAndATenantIndex() {
    store();

    CollectionInfo info = qdrant.info(collection);

    Map<String, VectorParams> vectors = info.getConfig().getParams().getVectorsConfig().getParamsMap().getMapMap();
    assertThat(vectors).containsOnlyKeys("text", "summary", "questions");
    assertThat(vectors.values()).allSatisfy(params -> {
      assertThat(params.getSize()).isEqualTo(DIMENSIONS);
      assertThat(params.getDistance()).isEqualTo(Distance.Cosine);
    });
    assertThat(info.getConfig().getParams().getSparseVectorsConfig().getMapMap()).containsOnlyKeys("bm25");
    assertThat(info.getPayloadSchemaMap().get("tenant_id").getDataType()).isEqualTo(PayloadSchemaType.Keyword);
    assertThat(info.getPayloadSchemaMap().get("tenant_id").getParams().getKeywordIndexParams().getIsTenant()).isTrue();
    assertThat(info.getPayloadSchemaMap().get("latest_version").getDataType()).isEqualTo(PayloadSchemaType.Bool);
    assertThat(info.getPayloadSchemaMap().get("document_id").getParams().getKeywordIndexParams().getEnableHnsw()).isFalse();
    assertThat(info.getConfig().getHnswConfig().getM()).isZero();
  }

  @Test
  void refusesACollectionMadeForAnotherEmbeddingModel() {
    store();

    assertThatThrownBy(() -> connect(DIMENSIONS * 2))
        .isInstanceOf(IngestionException.class)
        .hasMessageContaining("of " + DIMENSIONS * 2 + " dimensions");
  }

  private VectorStore connect(int dimensions) {
    return QdrantVectorStore.connect(qdrant.host(), qdrant.port(), API_KEY, false, collection, dimensions);
  }

  /** The same chunk id, document id, text and vectors for any tenant. */
  private static EmbeddedChunk twin(String tenant) {
    KnowledgeChunk base = chunk(tenant, "doc-1", 0, "Shared pricing for everyone", "Pricing");
    KnowledgeChunk twin = new KnowledgeChunk("chunk-0", base.documentId(), tenant, base.fileName(), base.documentVersion(),
        false, base.sectionHeading(), base.elementType(), base.chunkIndex(), base.text(), base.charCount(), base.tokenCount(),
        base.summary(), base.hypotheticalQuestions(), base.enrichmentGenerator(), base.ingestedAt());
    return embedded(twin, X, Y, Z);
  }

  private static float[] vectorOf(VectorName vector) {
    return switch (vector) {
      case TEXT -> X;
      case SUMMARY -> Y;
      case QUESTIONS -> Z;
    };
  }
}
