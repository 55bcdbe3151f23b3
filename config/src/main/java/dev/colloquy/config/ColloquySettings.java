package dev.colloquy.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;

/** Every setting of the engine, read once at start-up from the {@code colloquy} block. */
public record ColloquySettings(
    Environment env,
    HttpSettings http,
    StorageSettings storage,
    LlmSettings llm,
    SessionSettings session,
    KnowledgeSettings knowledge,
    AdminSettings admin,
    ShutdownSettings shutdown,
    LimitsSettings limits,
    CorsSettings cors,
    AuthSettings auth,
    ClusterSettings cluster,
    EdgeSettings edge,
    AgentSettings agent,
    AdmissionSettings admission,
    LanguageSettings language) {

  /** Reads and validates; throws {@link SettingsException} naming the first bad key. */
  public static ColloquySettings create(Config config) {
    SettingsReader reader = new SettingsReader(config);
    Environment env = reader.oneOf("colloquy.env", Environment.class);
    return new ColloquySettings(
        env,
        HttpSettings.create(reader, env),
        StorageSettings.create(reader),
        LlmSettings.create(reader),
        SessionSettings.create(reader),
        KnowledgeSettings.create(reader),
        AdminSettings.create(reader),
        ShutdownSettings.create(reader),
        LimitsSettings.create(reader),
        CorsSettings.create(reader),
        AuthSettings.create(reader),
        ClusterSettings.create(reader),
        EdgeSettings.create(reader),
        AgentSettings.create(reader),
        AdmissionSettings.create(reader),
        LanguageSettings.create(reader));
  }

  /**
   * The documented defaults: the {@code colloquy} block of reference.conf alone, without environment
   * variables or application.conf (tests and benchmarks that need the engine's limits as shipped).
   */
  public static ColloquySettings defaults() {
    return create(ConfigFactory.parseResources("reference.conf").withOnlyPath("colloquy")
        .resolve(ConfigResolveOptions.noSystem()));
  }

  public boolean production() {
    return env == Environment.PRODUCTION;
  }
}
