package dev.colloquy.engine.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The models a turn may run, each served by one provider. A model is named {@code provider/model},
 * or by its plain name, which is the first provider's (in catalog order) that serves a model of that
 * name. A model's own name may contain {@code /} (vLLM's {@code meta-llama/Llama-3.1-8B-Instruct}):
 * only a prefix that is a provider's name is read as one.
 */
public final class ModelCatalog {

  /** One model of one provider, and the client that calls it. */
  public record Entry(String provider, String model, ChatModel chat) {

    /** The name that reaches this model whatever else the catalog holds. */
    public String id() {
      return provider + "/" + model;
    }
  }

  private final List<Entry> entries;
  private final String defaultModel;

  /** {@code entries} in order; {@code defaultModel} must resolve. */
  public ModelCatalog(List<Entry> entries, String defaultModel) {
    this.entries = List.copyOf(entries);
    this.defaultModel = defaultModel;
    if (resolve(defaultModel).isEmpty()) {
      throw new IllegalArgumentException("The default model '" + defaultModel + "' is not one of " + ids());
    }
  }

  /** A catalog of models by name, each served by the provider its client names. */
  public ModelCatalog(Map<String, ChatModel> byName, String defaultModel) {
    this(entries(byName), defaultModel);
  }

  private static List<Entry> entries(Map<String, ChatModel> byName) {
    List<Entry> entries = new ArrayList<>();
    new LinkedHashMap<>(byName).forEach((name, chat) -> entries.add(new Entry(chat.provider(), name, chat)));
    return entries;
  }

  /** The model {@code name} reaches: {@code provider/model}, else the first provider's of that plain name. */
  public Optional<Entry> resolve(String name) {
    if (name == null) {
      return Optional.empty();
    }
    int slash = name.indexOf('/');
    if (slash > 0) {
      Optional<Entry> qualified = find(name.substring(0, slash), name.substring(slash + 1));
      if (qualified.isPresent()) {
        return qualified;
      }
    }
    return entries.stream().filter(entry -> entry.model().equals(name)).findFirst();
  }

  /** The model {@code model} of {@code provider}; a null provider (a run journaled before providers had names) resolves the plain name. */
  public Optional<Entry> find(String provider, String model) {
    if (provider == null) {
      return resolve(model);
    }
    return entries.stream().filter(entry -> entry.provider().equals(provider) && entry.model().equals(model)).findFirst();
  }

  public boolean contains(String name) {
    return resolve(name).isPresent();
  }

  public String defaultModel() {
    return defaultModel;
  }

  public List<Entry> entries() {
    return entries;
  }

  /** Every model as {@code provider/model}, in catalog order. */
  public List<String> ids() {
    return entries.stream().map(Entry::id).toList();
  }

  /** Every name that resolves: each {@code provider/model} and each plain model name. */
  public Set<String> names() {
    Set<String> names = new LinkedHashSet<>();
    for (Entry entry : entries) {
      names.add(entry.model());
      names.add(entry.id());
    }
    return names;
  }

  /**
   * One model per provider, its first: what a turn fans out to when its tenant names no fan-out set.
   * The offline responder is left out unless it is all there is.
   */
  public List<String> oneModelPerProvider(String offlineProvider) {
    Map<String, String> first = new LinkedHashMap<>();
    for (Entry entry : entries) {
      if (!entry.provider().equals(offlineProvider)) {
        first.putIfAbsent(entry.provider(), entry.id());
      }
    }
    return first.isEmpty() ? List.of(defaultModel) : List.copyOf(first.values());
  }
}
