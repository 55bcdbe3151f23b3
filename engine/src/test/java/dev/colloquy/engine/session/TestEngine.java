package dev.colloquy.engine.session;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.offline.OfflineResponder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;

/** Engine services for entity tests: the real offline responder, settings from reference.conf plus overrides. */
final class TestEngine {

  private TestEngine() {}

  static ColloquySettings settings(String overrides) {
    Config config = ConfigFactory.parseString(overrides).withFallback(ConfigFactory.defaultReference()).resolve();
    return ColloquySettings.create(config);
  }

  static EngineServices services(String overrides, Map<String, ChatModel> extraModels, KnowledgeBase knowledge) {
    ColloquySettings settings = settings(overrides);
    SessionSettings session = settings.session();
    LlmSettings llm = settings.llm();
    Map<String, ChatModel> models = new LinkedHashMap<>(extraModels);
    models.put(LlmSettings.OFFLINE_MODEL, new OfflineResponder(Executors.newVirtualThreadPerTaskExecutor()));
    return new EngineServices(session, llm, new ModelCatalog(models, LlmSettings.OFFLINE_MODEL), knowledge);
  }

  static EngineServices offline(String overrides) {
    return services(overrides, Map.of(), new EmptyKnowledgeBase());
  }
}
