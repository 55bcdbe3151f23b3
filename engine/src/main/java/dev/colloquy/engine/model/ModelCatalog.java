package dev.colloquy.engine.model;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The model names a turn may request, each bound to the model that serves it. */
public final class ModelCatalog {

  private final Map<String, ChatModel> byName;
  private final String defaultModel;

  public ModelCatalog(Map<String, ChatModel> byName, String defaultModel) {
    if (!byName.containsKey(defaultModel)) {
      throw new IllegalArgumentException("default model " + defaultModel + " is not in the catalog");
    }
    this.byName = new LinkedHashMap<>(byName);
    this.defaultModel = defaultModel;
  }

  public Optional<ChatModel> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  public boolean contains(String name) {
    return byName.containsKey(name);
  }

  public String defaultModel() {
    return defaultModel;
  }

  public Set<String> names() {
    return byName.keySet();
  }
}
