package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.ProviderSettings;
import dev.colloquy.config.SettingsException;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.InFlight;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.ConfiguredTenantSecrets;
import dev.colloquy.engine.agent.lingua.LinguaLanguageDetection;
import dev.colloquy.engine.agent.ConfiguredPolicies;
import dev.colloquy.engine.agent.MemoryStore;
import dev.colloquy.http.agent.MemoryRoutes;
import dev.colloquy.persistence.agent.JdbcMemoryStore;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.offline.OfflineResponder;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.IdleSessionReaper;
import dev.colloquy.engine.tenant.ConfiguredAnswerBudgets;
import dev.colloquy.engine.tenant.ConfiguredFailoverPolicy;
import dev.colloquy.engine.tenant.ConfiguredIdleTimeouts;
import dev.colloquy.engine.tenant.ConfiguredModelChoice;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfiguration;
import dev.colloquy.engine.tenant.TenantLimiter;
import dev.colloquy.http.Admission;
import dev.colloquy.http.ApiRoutes;
import dev.colloquy.http.BillingRoutes;
import dev.colloquy.http.HealthRoutes;
import dev.colloquy.http.JournalRoutes;
import dev.colloquy.http.KnowledgeRoutes;
import dev.colloquy.http.OpenConnections;
import dev.colloquy.http.OpenStreams;
import dev.colloquy.http.RequestHeadTimeout;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.SessionHistory;
import dev.colloquy.http.SessionListRoutes;
import dev.colloquy.http.SessionRoutes;
import dev.colloquy.http.cors.Cors;
import dev.colloquy.http.dialect.EdgeRoutes;
import dev.colloquy.http.dialect.ErrorShapes;
import dev.colloquy.http.dialect.FanOutRoutes;
import dev.colloquy.http.dialect.OpenAiRoutes;
import dev.colloquy.http.dialect.SupportRoutes;
import dev.colloquy.http.dialect.WritingRoomRoutes;
import dev.colloquy.http.limits.RateLimits;
import dev.colloquy.http.tenant.TenantConfigRoutes;
import dev.colloquy.http.tenant.TenantConfigs;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.DatabaseStart;
import dev.colloquy.persistence.JournalConfig;
import dev.colloquy.persistence.JournalHealth;
import dev.colloquy.persistence.JournalReader;
import dev.colloquy.persistence.dialect.JdbcTurnSessions;
import dev.colloquy.persistence.readside.JdbcBillingRecords;
import dev.colloquy.persistence.readside.JdbcChatListing;
import dev.colloquy.persistence.readside.JdbcMessageHistory;
import dev.colloquy.persistence.readside.JdbcSessionListing;
import dev.colloquy.persistence.readside.JdbcTenantUsage;
import dev.colloquy.persistence.readside.SessionProjection;
import dev.colloquy.persistence.tenant.Tenant;
import dev.colloquy.persistence.tenant.TenantStore;
import dev.colloquy.http.auth.Authentication;
import dev.colloquy.http.auth.TenantAdminRoutes;
import dev.colloquy.http.web.DevKeyOffer;
import dev.colloquy.http.web.WebAssets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.Directives;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Colloquy node: database, actor system with the sharded sessions, and the HTTP API.
 * {@link #start} is what {@code colloquy serve} and the integration tests both call.
 */
public final class Colloquy implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Colloquy.class);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

  private final ColloquySettings settings;
  private final Database database;
  private final ActorSystem<Void> system;
  private final ServerBinding binding;
  private final ExecutorService blocking;
  private final Knowledge knowledge;
  private final Operations operations;

  private Colloquy(ColloquySettings settings, Database database, ActorSystem<Void> system, ServerBinding binding,
      ExecutorService blocking, Knowledge knowledge, Operations operations) {
    this.settings = settings;
    this.database = database;
    this.system = system;
    this.binding = binding;
    this.blocking = blocking;
    this.knowledge = knowledge;
    this.operations = operations;
  }

  /**
   * Loads the configuration: overrides, then COLLOQUY_SEED_NODES and the COLLOQUY_PROVIDER_* variables,
   * then system properties, application.conf with its environment variables, reference.conf.
   */
  public static Config loadConfig(Config overrides) {
    ConfigFactory.invalidateCaches();
    return overrides.withFallback(SeedNodes.fromEnvironment()).withFallback(ProviderVariables.fromEnvironment())
        .withFallback(ConfigFactory.load());
  }

  public static Colloquy start(Config overrides) {
    Config config = loadConfig(overrides);
    ColloquySettings settings = ColloquySettings.create(config);
    // PostgreSQL starts and Flyway migrates on a thread of their own while the actor system starts and
    // the node joins its cluster: neither needs the other (the journal connects on first use), and
    // nothing that reads or writes the database starts before it is open and migrated.
    DatabaseStart databaseStart = Database.start(settings.storage());
    Database database = null;
    ExecutorService blocking = Executors.newVirtualThreadPerTaskExecutor();
    ActorSystem<Void> system = null;
    Knowledge knowledge = null;
    Operations operations = null;
    try {
      ModelCatalog models = models(settings.llm(), blocking);
      system = ActorSystem.create(Behaviors.empty(), "colloquy",
          JournalConfig.forDatabase(databaseStart.connection())
              .withFallback(GracefulShutdown.phaseTimeouts(settings.shutdown()))
              .withFallback(ClusterFormation.pekkoConfig(settings.cluster(), config)).withFallback(config));
      InFlight turns = new InFlight();
      ClusterFormation.join(system, settings.cluster());
      database = databaseStart.await();
      operations = Operations.start(database);
      knowledge = Knowledge.open(settings.knowledge(), settings.storage().dataDir(), database.dataSource(),
          Knowledge.modelEnricher(settings.llm(), models));
      knowledge.documents().resume();
      InFlight streams = new InFlight();
      OpenConnections connections = new OpenConnections();
      MemoryStore memories = new JdbcMemoryStore(database.dataSource(), knowledge.embeddings());
      MemoryRoutes memoryRoutes = new MemoryRoutes(memories, blocking);
      TenantConfig tenantDefaults = TenantConfig.defaults(settings.limits(),
          settings.session().idleTimeout().toSeconds(), models.defaultModel());
      ConfiguredAnswerBudgets tenantSettings =
          new ConfiguredAnswerBudgets(system, settings.http().askTimeout(), settings.limits().maxTokens());
      EngineServices services = new EngineServices(settings.session(), settings.llm(), models,
          knowledge.search(), turns, operations.metrics(), !settings.production(), tenantSettings, tenantSettings,
          new ConfiguredFailoverPolicy(system, settings.http().askTimeout()), operations.journal(),
          new AgentServices(new ConfiguredPolicies(system, settings.http().askTimeout(), tenantDefaults),
              settings.agent(), memories, blocking, LinguaLanguageDetection.of(settings.language()),
              new ConfiguredTenantSecrets(system, settings.http().askTimeout())));
      ChatSession.init(system, services);
      TenantConfiguration.init(system, tenantDefaults, models.names());
      Webhooks.start(system, settings, database.dataSource(), operations.metrics(), blocking);
      TenantLimiter.init(system, settings.limits().streamLease());
      TenantConfigs tenantConfigs = new TenantConfigs(system, settings.http().askTimeout());
      TenantConfigRoutes tenantConfigRoutes = new TenantConfigRoutes(tenantConfigs);
      JdbcSessionListing sessionsTable = new JdbcSessionListing(database.dataSource(), blocking);
      SessionProjection.init(system, database.dataSource());
      IdleSessionReaper.init(system, sessionsTable, new ConfiguredIdleTimeouts(system, settings.http().askTimeout(),
          settings.session().idleTimeout()), settings.session());
      TenantStore tenants = new TenantStore(database.dataSource());
      if (!settings.production()) {
        DevTenant.ensure(tenants, settings.storage().dataDir(), System.out);
      }
      KnowledgeRoutes knowledgeRoutes =
          new KnowledgeRoutes(knowledge.documents(), settings.knowledge().ingestion(), blocking);
      TenantAdminRoutes adminRoutes = new TenantAdminRoutes(tenants, blocking);
      BillingRoutes billingRoutes = new BillingRoutes(new JdbcBillingRecords(database.dataSource()), blocking);
      SessionGateway gateway = new SessionGateway(system, settings.http().askTimeout(),
          new ConfiguredModelChoice(system, settings.http().askTimeout(), models));
      // One bound on the turns this node is starting, whichever API or dialect starts them.
      Admission admission = new Admission(settings.admission());
      OpenAiRoutes openAi = new OpenAiRoutes(gateway, models, settings.http(), operations.metrics(), admission);
      FanOutRoutes fanOut = new FanOutRoutes(gateway,
          new JdbcTurnSessions(database.dataSource(), blocking), settings.http(), operations.metrics(), Clock.systemUTC(),
          admission);
      ErrorShapes dialectErrors = new ErrorShapes(List.of(OpenAiRoutes.errorShape(), EdgeRoutes.errorShape()));
      WritingRoomRoutes writingRoom = new WritingRoomRoutes(gateway,
          new JdbcChatListing(database.dataSource(), blocking), settings.http(), operations.metrics(), admission);
      EdgeRoutes edge = new EdgeRoutes(gateway, knowledge.documents(), knowledge.embeddingModel(), blocking,
          settings.edge(), settings.http(), operations.metrics(), admission);
      JdbcMessageHistory messages = new JdbcMessageHistory(database.dataSource(), blocking);
      SupportRoutes support = new SupportRoutes(gateway, new SessionHistory(gateway, messages), settings.http(),
          operations.metrics(), admission);
      ApiRoutes routes = new ApiRoutes(
          new SessionRoutes(gateway, messages, settings.http(),
              operations.metrics(), admission),
          new SessionListRoutes(sessionsTable),
          new JournalRoutes(new JournalReader(system)),
          new HealthRoutes(system, operations.journal(), () -> !turns.draining()),
          (principal, traceId) -> Directives.concat(knowledgeRoutes.route(principal), billingRoutes.route(principal),
              tenantConfigRoutes.route(principal.tenantId(), traceId), memoryRoutes.route(principal, traceId),
              openAi.route(principal, traceId), fanOut.route(principal, traceId), writingRoom.route(principal, traceId),
              edge.route(principal), support.route(principal, traceId)),
          new Authentication(tenants, settings.auth(), settings.admin().token(),
              idOrName -> tenants.find(idOrName).map(Tenant::tenantId), blocking)
              .withPublicKeysFrom(tenantId -> tenantConfigs.current(tenantId)
                  .thenApply(current -> current.config().allowedOrigins())),
          adminRoutes::route,
          operations.observability(!settings.production()), () -> !turns.draining(),
          new Cors(settings.cors(), tenantConfigs),
          new RateLimits(system, tenantConfigs, new JdbcTenantUsage(database.dataSource(), blocking),
              settings.http().askTimeout(), Clock.systemUTC()));
      ServerBinding binding = ApiListener.bind(system, settings.http().host(), settings.http().port(),
              connections.around(RequestHeadTimeout.around(new OpenStreams(streams)
                  .track(Directives.concat(webAssets(settings).route(), dialectErrors.route(routes::route))).flow(system),
                  settings.http().requestHeadTimeout())),
              connections, Duration.ofSeconds(10))
          .toCompletableFuture()
          .get(STARTUP_TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)
          .binding();
      // Ready for the management endpoint only from here: before, the API does not listen yet.
      NodeReadiness.get(system).register(operations.journal(), () -> !turns.draining());
      GracefulShutdown.register(system, turns, streams, connections, settings.shutdown());
      log.info("Colloquy is listening on http://{}:{} (models: {}, storage: {})", settings.http().host(),
          binding.localAddress().getPort(), models.ids(),
          database.embedded() ? "embedded PostgreSQL in " + settings.storage().dataDir() : "external PostgreSQL");
      return new Colloquy(settings, database, system, binding, blocking, knowledge, operations);
    } catch (Exception e) {
      if (system != null) {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().join();
      }
      blocking.shutdownNow();
      if (operations != null) {
        operations.close();
      }
      if (knowledge != null) {
        knowledge.close();
      }
      if (database != null) {
        database.close();
      } else {
        databaseStart.abandon();
      }
      throw startFailure(e, config, settings, system != null);
    }
  }

  /** The web app and widget; in development the app may offer the development key to this machine. */
  private static WebAssets webAssets(ColloquySettings settings) {
    return new WebAssets(settings.production() ? DevKeyOffer.none()
        : DevKeyOffer.of(settings.storage().dataDir().resolve(DevTenant.KEY_FILE)));
  }

  /** A port already taken is named, with what to change; anything else keeps its own message. */
  private static RuntimeException startFailure(Exception e, Config config, ColloquySettings settings,
      boolean clusterStarted) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof java.net.BindException) {
        if (!clusterStarted) {
          return new IllegalStateException("cluster port " + config.getInt("pekko.remote.artery.canonical.port")
              + " on " + config.getString("pekko.remote.artery.canonical.hostname")
              + " is already in use (is another Colloquy running?); a second local instance needs its own"
              + " COLLOQUY_CLUSTER_PORT, e.g. 25521", e);
        }
        return new IllegalStateException("HTTP port " + settings.http().port() + " on " + settings.http().host()
            + " is already in use; choose another with --port or COLLOQUY_HTTP_PORT", e);
      }
    }
    return e instanceof RuntimeException runtime ? runtime : new IllegalStateException("Colloquy did not start: " + Failures.describe(e), e);
  }

  /**
   * Every provider's models, then the offline responder. {@code offline} always names the offline
   * responder, as it always has: a provider's model of that name is left out. A default model that
   * names none of them stops the start like any invalid setting.
   */
  public static ModelCatalog models(LlmSettings llm, ExecutorService blocking) {
    List<ModelCatalog.Entry> entries = new ArrayList<>();
    for (ProviderSettings provider : llm.providers()) {
      OpenAiChatModel endpoint = new OpenAiChatModel(provider, blocking);
      provider.models().stream().filter(model -> !model.equals(LlmSettings.OFFLINE_MODEL))
          .forEach(model -> entries.add(new ModelCatalog.Entry(provider.name(), model, endpoint)));
    }
    entries.add(new ModelCatalog.Entry(OfflineResponder.PROVIDER, LlmSettings.OFFLINE_MODEL, new OfflineResponder(blocking)));
    try {
      return new ModelCatalog(entries, llm.defaultModel());
    } catch (IllegalArgumentException e) {
      throw new SettingsException("colloquy.llm.default-model", "COLLOQUY_LLM_DEFAULT_MODEL", e.getMessage());
    }
  }

  public int port() {
    return binding.localAddress().getPort();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  public ActorSystem<Void> system() {
    return system;
  }

  public ColloquySettings settings() {
    return settings;
  }

  /** The database the journal lives in; benchmarks and tests look at its tables. */
  public Database database() {
    return database;
  }

  /** Stops taking requests, stops the actor system, then the database. */
  @Override
  public void close() {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().join();
    blocking.shutdownNow();
    operations.close();
    knowledge.close();
    database.close();
  }

  /** Blocks until the actor system has terminated (by SIGTERM or close). */
  public void awaitTermination() {
    system.getWhenTerminated().toCompletableFuture().join();
  }
}
