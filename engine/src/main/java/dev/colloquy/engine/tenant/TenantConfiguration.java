package dev.colloquy.engine.tenant;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.colloquy.engine.CborSerializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One tenant's configuration, event-sourced and sharded: the single source every node asks, so a
 * change takes effect for the next turn everywhere. Each change is validated as a whole before it is
 * journaled.
 */
public final class TenantConfiguration
    extends EventSourcedBehaviorWithEnforcedReplies<TenantConfiguration.Command, TenantConfiguration.Event,
        TenantConfigState> {

  public static final EntityTypeKey<Command> ENTITY_KEY = EntityTypeKey.create(Command.class, "TenantConfiguration");

  // ---- commands ----

  public sealed interface Command extends CborSerializable {}

  public record Get(ActorRef<Reply> replyTo) implements Command {}

  /** Apply {@code change}: its null fields leave the current values; the whole result is validated. */
  public record Update(TenantConfig change, ActorRef<Reply> replyTo) implements Command {}

  /** The secret that signs the escalation and data webhooks; only their senders ask for it. */
  public record GetWebhookSecret(ActorRef<Reply> replyTo) implements Command {}

  // ---- replies ----

  public sealed interface Reply extends CborSerializable {}

  /**
   * The effective configuration and its version (0 until the first change). {@code newWebhookSecret}
   * is set only in the reply to the change that issued it.
   */
  public record Current(TenantConfig config, long version, Instant updatedAt, String newWebhookSecret)
      implements Reply {

    /** Never prints the secret. */
    @Override
    public String toString() {
      return "Current[version=" + version + ", config=" + config + "]";
    }
  }

  public record Invalid(List<ConfigProblem> problems) implements Reply {}

  public record WebhookSecret(String secret) implements Reply {

    @Override
    public String toString() {
      return "WebhookSecret[***]";
    }
  }

  // ---- events ----

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = ConfigChanged.class, name = "ConfigChanged"),
    @JsonSubTypes.Type(value = WebhookSecretIssued.class, name = "WebhookSecretIssued")
  })
  public sealed interface Event extends CborSerializable {
    Instant at();
  }

  public record ConfigChanged(TenantConfig change, Instant at) implements Event {}

  public record WebhookSecretIssued(String secret, Instant at) implements Event {

    @Override
    public String toString() {
      return "WebhookSecretIssued[at=" + at + "]";
    }
  }

  private final String tenantId;
  private final TenantConfig defaults;
  private final Set<String> models;
  /** Where this node's readers find the configuration while this entity runs here. */
  private final HostedTenantConfigs hosted;

  private TenantConfiguration(String tenantId, TenantConfig defaults, Set<String> models, HostedTenantConfigs hosted) {
    super(persistenceId(tenantId));
    this.tenantId = tenantId;
    this.defaults = defaults;
    this.models = Set.copyOf(models);
    this.hosted = hosted;
  }

  public static PersistenceId persistenceId(String tenantId) {
    return PersistenceId.of(ENTITY_KEY.name(), tenantId);
  }

  /** {@code defaults} is the configuration of a tenant that set nothing; {@code models} the names a turn may use. */
  public static Behavior<Command> create(String tenantId, TenantConfig defaults, Set<String> models) {
    return Behaviors.setup(context ->
        new TenantConfiguration(tenantId, defaults, models, HostedTenantConfigs.get(context.getSystem())));
  }

  /** Registers the entity with cluster sharding on this node; returns the region to send envelopes to. */
  public static ActorRef<ShardingEnvelope<Command>> init(ActorSystem<?> system, TenantConfig defaults,
      Set<String> models) {
    return ClusterSharding.get(system)
        .init(Entity.of(ENTITY_KEY, entity -> create(entity.getEntityId(), defaults, models)));
  }

  @Override
  public TenantConfigState emptyState() {
    return TenantConfigState.empty();
  }

  @Override
  public CommandHandlerWithReply<Command, Event, TenantConfigState> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(Get.class, (state, get) -> Effect().reply(get.replyTo(), current(state, null)))
        .onCommand(Update.class, this::update)
        .onCommand(GetWebhookSecret.class,
            (state, ask) -> Effect().reply(ask.replyTo(), new WebhookSecret(state.webhookSecret())))
        .build();
  }

  private ReplyEffect<Event, TenantConfigState> update(TenantConfigState state, Update update) {
    List<ConfigProblem> problems = state.problemsOf(update.change(), defaults, models);
    if (!problems.isEmpty()) {
      return Effect().reply(update.replyTo(), new Invalid(problems));
    }
    Instant at = Instant.now();
    List<Event> events = new ArrayList<>();
    events.add(new ConfigChanged(update.change(), at));
    String secret = state.needsSecret(update.change(), defaults) ? WebhookSecrets.generate() : null;
    if (secret != null) {
      events.add(new WebhookSecretIssued(secret, at));
    }
    return Effect().persist(events).thenReply(update.replyTo(), updated -> {
      // Before the reply: whoever was told of the change finds it on this node from then on.
      hosted.hold(tenantId, this, current(updated, null));
      return current(updated, secret);
    });
  }

  private Current current(TenantConfigState state, String newSecret) {
    return new Current(state.effective(defaults), state.version(), state.updatedAt(), newSecret);
  }

  /** Recovered: this node's readers read this entity's state; stopped: they ask again. */
  @Override
  public SignalHandler<TenantConfigState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> hosted.hold(tenantId, this, current(state, null)))
        .onSignal(PostStop.instance(), state -> hosted.release(tenantId, this))
        .build();
  }

  @Override
  public EventHandler<TenantConfigState, Event> eventHandler() {
    return (state, event) -> switch (event) {
      case ConfigChanged changed -> state.changed(changed.change(), changed.at());
      case WebhookSecretIssued issued -> state.withSecret(issued.secret());
    };
  }
}
