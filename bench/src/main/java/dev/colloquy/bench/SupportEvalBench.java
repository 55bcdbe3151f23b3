package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.agent.EscalationRules;
import dev.colloquy.engine.agent.OfflineIntentClassifier;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.embed.MiniLmEmbeddingModel;
import dev.colloquy.ingestion.search.HybridKnowledgeBase;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * How well the agent decides without a model, on the support evaluation set
 * ({@code bench/eval/support/conversations.json}): the offline intent classifier's accuracy, and the
 * escalation rules' precision and recall, with retrieval's real confidence (MiniLM, Lucene, hybrid
 * search) over the retrieval evaluation set's documents. Each conversation runs as a session would:
 * its turns count toward {@code max_turns_before_escalation}, and it ends at its first escalation.
 */
@Command(name = "support", mixinStandardHelpOptions = true,
    description = "Intent accuracy of the offline classifier and escalation precision/recall on the support evaluation set.")
final class SupportEvalBench implements Callable<Integer> {

  static final int RETRIEVAL_LIMIT = 5;

  @Option(names = "--eval-dir", defaultValue = "bench/eval", description = "The evaluation sets (default ${DEFAULT-VALUE})")
  Path evalDir;

  @Option(names = "--per-turn", description = "Also print every turn the agent decided differently from its label")
  boolean perTurn;

  @Option(names = "--thresholds", split = ",", defaultValue = "0.55,0.45,0.35,0.25",
      description = "escalation_threshold values to compare; the first is the set's own (default ${DEFAULT-VALUE})")
  List<Double> thresholds;

  record Turn(String conversation, String message, Intent intent, EscalationReason escalation) {}

  record Decision(Turn turn, Intent intent, Double confidence, EscalationReason escalation) {}

  @Override
  public Integer call() throws Exception {
    Map<Double, Result> results = evaluate(evalDir, thresholds);
    Result first = results.get(thresholds.getFirst());
    System.out.println(first.markdown());
    System.out.println("| escalation_threshold | precision | recall | escalated rightly | wrongly | missed |\n|---|---|---|---|---|---|");
    results.forEach((threshold, result) -> System.out.printf(Locale.ROOT, "| %.2f | %.3f | %.3f | %d | %d | %d |%n",
        threshold, result.precision(), result.recall(), result.escalated(true, true), result.escalated(false, true),
        result.escalated(true, false)));
    if (perTurn) {
      System.out.println();
      System.out.println(first.missesMarkdown());
    }
    return 0;
  }

  /** The decisions under each threshold; retrieval runs once per message. */
  static Map<Double, Result> evaluate(Path evalDir, List<Double> thresholds) throws IOException {
    JsonNode set = new ObjectMapper().readTree(evalDir.resolve("support").resolve("conversations.json").toFile());
    TenantConfig tenant = tenant(set.path("tenant"));
    MiniLmEmbeddingModel model = new MiniLmEmbeddingModel();
    Path directory = Files.createTempDirectory("colloquy-support-eval");
    try (LuceneVectorStore store = new LuceneVectorStore(directory, model.dimensions())) {
      RetrievalBench.ingest(RetrievalBench.EvalSet.read(evalDir), store,
          IngestionPipeline.create(ColloquySettings.defaults().knowledge().ingestion(), model));
      HybridKnowledgeBase knowledge = new HybridKnowledgeBase(store, model, Runnable::run);
      Map<String, Double> confidences = new java.util.HashMap<>();
      Map<Double, Result> results = new java.util.LinkedHashMap<>();
      for (double threshold : thresholds) {
        TenantConfig config = tenant.overlay(withThreshold(threshold));
        results.put(threshold, new Result(decide(set, config, message -> confidences.computeIfAbsent(message,
            asked -> knowledge.search(RetrievalBench.TENANT, asked, RETRIEVAL_LIMIT).toCompletableFuture().join()
                .confidence()))));
      }
      return results;
    } finally {
      RetrievalBench.deleteRecursively(directory);
    }
  }

  private static List<Decision> decide(JsonNode set, TenantConfig tenant,
      java.util.function.Function<String, Double> confidenceOf) {
    List<Decision> decisions = new ArrayList<>();
    for (JsonNode conversation : set.path("conversations")) {
      int prior = 0;
      for (JsonNode turn : conversation.path("turns")) {
        Turn labelled = new Turn(conversation.path("id").asText(), turn.path("message").asText(),
            Intent.parse(turn.path("intent").asText()).orElseThrow(),
            turn.path("escalation").isNull() ? null
                : EscalationReason.valueOf(turn.path("escalation").asText().toUpperCase(Locale.ROOT)));
        Intent intent = OfflineIntentClassifier.classify(labelled.message(), tenant.allowedTopics(),
            tenant.blockedTopics());
        Double confidence = intent == Intent.DOMAIN_QUERY ? confidenceOf.apply(labelled.message()) : null;
        Optional<EscalationReason> escalation = EscalationRules.decide(tenant, intent, confidence, prior,
            labelled.message());
        decisions.add(new Decision(labelled, intent, confidence, escalation.orElse(null)));
        prior++;
        if (escalation.isPresent()) {
          break;
        }
      }
    }
    return decisions;
  }

  private static TenantConfig withThreshold(double threshold) {
    return new TenantConfig(null, null, null, null, threshold, threshold, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null);
  }

  private static TenantConfig tenant(JsonNode json) {
    List<String> allowed = new ArrayList<>();
    json.path("allowed_topics").forEach(topic -> allowed.add(topic.asText()));
    List<String> blocked = new ArrayList<>();
    json.path("blocked_topics").forEach(topic -> blocked.add(topic.asText()));
    return TenantConfig.NO_CHANGE.overlay(new TenantConfig(null, null, null, "https://support.example/hooks",
        json.path("escalation_threshold").asDouble(), null, json.path("max_turns_before_escalation").asInt(), allowed,
        blocked, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null));
  }

  record Result(List<Decision> decisions) {

    double intentAccuracy() {
      return (double) decisions.stream().filter(d -> d.intent() == d.turn().intent()).count() / decisions.size();
    }

    /** Turns that should escalate and did (true positives), did not (false negatives), and that escalated wrongly. */
    long escalated(boolean labelled, boolean decided) {
      return decisions.stream()
          .filter(d -> (d.turn().escalation() != null) == labelled && (d.escalation() != null) == decided).count();
    }

    double precision() {
      long truePositives = escalated(true, true);
      return truePositives == 0 ? 0 : (double) truePositives / (truePositives + escalated(false, true));
    }

    double recall() {
      long truePositives = escalated(true, true);
      return truePositives == 0 ? 0 : (double) truePositives / (truePositives + escalated(true, false));
    }

    String markdown() {
      StringBuilder out = new StringBuilder();
      long conversations = decisions.stream().map(d -> d.turn().conversation()).distinct().count();
      out.append(String.format(Locale.ROOT, "Support evaluation set: %d conversations, %d turns decided%n%n",
          conversations, decisions.size()));
      out.append(String.format(Locale.ROOT, "Offline intent classifier: accuracy %.3f (%d of %d)%n%n", intentAccuracy(),
          decisions.stream().filter(d -> d.intent() == d.turn().intent()).count(), decisions.size()));
      out.append("| labelled \\ routed | conversational | domain_query | out_of_scope |\n|---|---|---|---|\n");
      for (Intent labelled : Intent.values()) {
        Map<Intent, Integer> row = new EnumMap<>(Intent.class);
        decisions.stream().filter(d -> d.turn().intent() == labelled).forEach(d -> row.merge(d.intent(), 1, Integer::sum));
        out.append("| ").append(labelled.wireName());
        for (Intent routed : Intent.values()) {
          out.append(" | ").append(row.getOrDefault(routed, 0));
        }
        out.append(" |\n");
      }
      out.append(String.format(Locale.ROOT, "%nEscalation (offline routing, retrieval's confidence, the rules): "
              + "precision %.3f, recall %.3f (%d escalated rightly, %d wrongly, %d missed; %d turns rightly not)%n%n",
          precision(), recall(), escalated(true, true), escalated(false, true), escalated(true, false),
          escalated(false, false)));
      out.append("| labelled reason | turns | escalated | with that reason |\n|---|---|---|---|\n");
      for (EscalationReason reason : EscalationReason.values()) {
        List<Decision> labelled = decisions.stream().filter(d -> d.turn().escalation() == reason).toList();
        if (!labelled.isEmpty()) {
          out.append(String.format(Locale.ROOT, "| %s | %d | %d | %d |%n", reason.wireName(), labelled.size(),
              labelled.stream().filter(d -> d.escalation() != null).count(),
              labelled.stream().filter(d -> d.escalation() == reason).count()));
        }
      }
      return out.toString();
    }

    String missesMarkdown() {
      StringBuilder out = new StringBuilder("| conversation | message | intent (labelled → routed) | confidence | "
          + "escalation (labelled → decided) |\n|---|---|---|---|---|\n");
      for (Decision d : decisions) {
        if (d.intent() != d.turn().intent() || d.escalation() != d.turn().escalation()) {
          out.append(String.format(Locale.ROOT, "| %s | %s | %s → %s | %s | %s → %s |%n", d.turn().conversation(),
              d.turn().message(), d.turn().intent().wireName(), d.intent().wireName(),
              d.confidence() == null ? "-" : String.format(Locale.ROOT, "%.2f", d.confidence()),
              name(d.turn().escalation()), name(d.escalation())));
        }
      }
      return out.toString();
    }

    private static String name(EscalationReason reason) {
      return reason == null ? "none" : reason.wireName();
    }
  }
}
