package dev.colloquy.mockllm;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The models {@code GET /v1/models} lists: two built-in names and every model asked for so far,
 * since the mock answers for any name.
 */
final class ModelCatalog {
  static final List<String> BUILT_IN = List.of("mock-chat", "mock-embedding");

  record ModelList(String object, List<Model> data) {}

  record Model(String id, String object, long created, String ownedBy) {}

  private final Set<String> seen = new ConcurrentSkipListSet<>();

  void saw(String model) {
    seen.add(model);
  }

  ModelList list() {
    Set<String> ids = new LinkedHashSet<>(BUILT_IN);
    ids.addAll(seen);
    return new ModelList(
        "list", ids.stream().map(id -> new Model(id, "model", 0L, "colloquy-mock-llm")).toList());
  }
}
