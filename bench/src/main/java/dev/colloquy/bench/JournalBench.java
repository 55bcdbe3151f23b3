package dev.colloquy.bench;

import dev.colloquy.app.Colloquy;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.domain.RunSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Journal write throughput and latency with W concurrent writers: W persistent actors on the real
 * PostgreSQL journal, each persisting one event at a time (the session entity's own
 * {@code TurnAccepted}, serialized as in production) and the next as soon as the journal confirms
 * the last. Latency is from the persist call to the confirmation, which includes waiting for the
 * journal's batch; events/s counts the confirmations in the measured window after a warm-up. The
 * warm-up lasts until every writer has had a write confirmed, however long the given time: on a
 * loaded machine the writers' recovery and first writes once outlasted it, and the measured window
 * counted nothing.
 */
@Command(name = "journal", mixinStandardHelpOptions = true,
    description = "Events/s and write latency of W concurrent persistent writers on the PostgreSQL journal; prints Markdown.")
final class JournalBench implements Callable<Integer> {

  @Option(names = "--writers", defaultValue = "100", description = "Concurrent persistent writers (default ${DEFAULT-VALUE})")
  int writers;

  @Option(names = "--seconds", defaultValue = "30", description = "Measured time (default ${DEFAULT-VALUE})")
  int seconds;

  @Option(names = "--warm-up-seconds", defaultValue = "5", description = "Writes before the measured time (default ${DEFAULT-VALUE})")
  int warmUpSeconds;

  @Option(names = "--setting", description = "A setting of the node, e.g. jdbc-journal.parallelism=2 (repeatable)")
  Map<String, String> settings = Map.of();

  @Option(names = "--database-setting", description = "A setting of the embedded PostgreSQL that a reload applies,"
      + " e.g. commit_delay=100 (repeatable)")
  Map<String, String> databaseSettings = Map.of();

  record Result(int writers, double seconds, long events, Histogram micros, String load, TagCheck tags, Cost cost) {

    static String header() {
      return "| writers | measured | events | events/s | write p50 | p99 | max | node CPU/event | PostgreSQL CPU/event"
          + " | events/transaction | WAL/event | load (1/5/15 min) |\n"
          + "|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    double eventsPerSecond() {
      return events / seconds;
    }

    String markdown() {
      return String.format("| %d | %.1f s | %,d | %.0f | %.1f ms | %.1f ms | %.1f ms | %s | %s | %s | %s | %s |", writers, seconds,
          events, eventsPerSecond(), micros.getValueAtPercentile(50) / 1000.0, micros.getValueAtPercentile(99) / 1000.0,
          micros.getMaxValue() / 1000.0, perEvent(cost.nodeCpuSeconds()), perEvent(cost.postgresCpuSeconds()),
          cost.transactions() > 0 ? String.format("%.1f", events / (double) cost.transactions()) : "–",
          events > 0 ? String.format("%,d B", cost.walBytes() / events) : "–", load);
    }

    private String perEvent(double cpuSeconds) {
      return cpuSeconds < 0 || events == 0 ? "–" : String.format("%.0f µs", cpuSeconds * 1e6 / events);
    }
  }

  /**
   * What the measured window cost: CPU seconds of this JVM (its JIT compiler's excluded: a node
   * compiles for minutes after it starts, longer on a loaded machine) and of the embedded
   * PostgreSQL (-1 when the database is external), the transactions the database committed and the
   * WAL it wrote. On a machine shared with other work the CPU per event stays comparable where
   * events/s does not (it is what a quiet machine's cores would be divided by), and the WAL per
   * event, which the database must write and flush for each event, does not depend on the load.
   */
  record Cost(double nodeCpuSeconds, double postgresCpuSeconds, long transactions, long walBytes) {

    static Cost now(javax.sql.DataSource dataSource, java.util.Optional<Long> postmaster) throws java.sql.SQLException {
      long pid = ProcessHandle.current().pid();
      double node = ProcStat.cpuSeconds(pid) - ProcStat.compilerCpuSeconds(pid);
      double postgres = postmaster.map(ProcStat::postgresCpuSeconds).orElse(-1.0);
      try (java.sql.Connection connection = dataSource.getConnection();
          java.sql.Statement statement = connection.createStatement();
          java.sql.ResultSet row = statement.executeQuery(
              "SELECT xact_commit, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"
                  + " FROM pg_stat_database WHERE datname = current_database()")) {
        return row.next() ? new Cost(node, postgres, row.getLong(1), row.getLong(2)) : new Cost(node, postgres, 0, 0);
      }
    }

    Cost since(Cost start) {
      return new Cost(nodeCpuSeconds - start.nodeCpuSeconds,
          postgresCpuSeconds < 0 ? -1 : postgresCpuSeconds - start.postgresCpuSeconds, transactions - start.transactions,
          walBytes - start.walBytes);
    }
  }

  @Override
  public Integer call() throws Exception {
    try (BenchNode node = BenchNode.start(Map.copyOf(settings))) {
      if (!databaseSettings.isEmpty() && !node.colloquy().database().embedded()) {
        throw new IllegalArgumentException("--database-setting applies to the embedded PostgreSQL only");
      }
      ReloadableDatabaseSettings.apply(node.colloquy().database().dataSource(), databaseSettings);
      System.out.println(Machine.describe(node.colloquy().database().embedded()) + (settings.isEmpty() ? ""
          : ", settings " + settings) + (databaseSettings.isEmpty() ? "" : ", PostgreSQL settings " + databaseSettings));
      System.out.println();
      System.out.println(Result.header());
      Result result = measure(node.colloquy(), ProcStat.postmasterUnder(node.dataDir()), writers,
          Duration.ofSeconds(warmUpSeconds), Duration.ofSeconds(seconds));
      System.out.println(result.markdown());
      System.out.printf("%nTags: %,d events written, %,d without their tag, %,d with another writer's tag.%n",
          result.tags().events(), result.tags().untagged(), result.tags().mistagged());
      System.out.println("Transactions: all the database committed in the measured window (the read side's"
          + " polls included), as PostgreSQL's statistics counted them (they lag up to a second).");
    }
    return 0;
  }

  private static final Duration FIRST_WRITES_TIMEOUT = Duration.ofMinutes(2);

  static Result measure(Colloquy colloquy, java.util.Optional<Long> postmaster, int writers, Duration warmUp,
      Duration measured) throws Exception {
    Meter meter = new Meter(writers);
    String run = UUID.randomUUID().toString();
    for (int i = 0; i < writers; i++) {
      ActorRef<Writer.Write> writer = colloquy.system().systemActorOf(
          Writer.create(PersistenceId.of("JournalBench", run + "-" + i), tagOf(i), meter), "journal-writer-" + i,
          Props.empty());
      writer.tell(new Writer.Write());
    }
    Thread.sleep(warmUp.toMillis()); // a benchmark's warm-up: the writers run on their own meanwhile
    if (!meter.firstWrites.await(FIRST_WRITES_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      meter.running.set(false);
      throw new IllegalStateException(meter.firstWrites.getCount() + " of " + writers
          + " writers had no write confirmed within " + FIRST_WRITES_TIMEOUT.toSeconds() + " s");
    }
    javax.sql.DataSource dataSource = colloquy.database().dataSource();
    Cost before = Cost.now(dataSource, postmaster);
    meter.measuring.set(true);
    long started = System.nanoTime();
    Thread.sleep(measured.toMillis());
    meter.measuring.set(false);
    double seconds = (System.nanoTime() - started) / 1e9;
    Cost cost = Cost.now(dataSource, postmaster).since(before);
    meter.running.set(false);
    String load = Machine.load();
    return new Result(writers, seconds, meter.events.sum(), meter.micros.copy(), load,
        TagCheck.of(dataSource, run), cost);
  }

  /** Writers are tagged as sessions are (four tags, none a session's), so each write also inserts its tag row. */
  private static String tagOf(int writer) {
    return "journal-bench-" + writer % 4;
  }

  /**
   * Whether every event written carries its writer's tag: the journal inserts events and their tags
   * in batches, and a batch must give each tag row its own event.
   */
  record TagCheck(long events, long untagged, long mistagged) {

    static TagCheck of(javax.sql.DataSource dataSource, String run) throws java.sql.SQLException {
      long events = 0;
      long untagged = 0;
      long mistagged = 0;
      try (java.sql.Connection connection = dataSource.getConnection();
          java.sql.PreparedStatement query = connection.prepareStatement(
              "SELECT j.persistence_id, t.tag FROM event_journal j LEFT JOIN event_tag t ON t.event_id = j.ordering"
                  + " WHERE j.persistence_id LIKE ?")) {
        query.setString(1, "JournalBench|" + run + "-%");
        try (java.sql.ResultSet rows = query.executeQuery()) {
          while (rows.next()) {
            events++;
            String persistenceId = rows.getString(1);
            String tag = rows.getString(2);
            int writer = Integer.parseInt(persistenceId.substring(persistenceId.lastIndexOf('-') + 1));
            if (tag == null) {
              untagged++;
            } else if (!tag.equals(tagOf(writer))) {
              mistagged++;
            }
          }
        }
      }
      return new TagCheck(events, untagged, mistagged);
    }
  }

  /** What the writers report; they record only while {@code measuring}, and stop once not {@code running}. */
  static final class Meter {
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicBoolean measuring = new AtomicBoolean();
    final LongAdder events = new LongAdder();
    final ConcurrentHistogram micros = new ConcurrentHistogram(3);
    /** Counted down once by each writer, at its first confirmed write. */
    final CountDownLatch firstWrites;

    Meter(int writers) {
      firstWrites = new CountDownLatch(writers);
    }

    void written(long nanos) {
      if (measuring.get()) {
        events.increment();
        micros.recordValue(nanos / 1000);
      }
    }
  }

  /** A persistent actor that writes one session event at a time, for as long as the meter runs. */
  static final class Writer extends EventSourcedBehavior<Writer.Write, ChatSession.Event, Long> {

    record Write() {}

    private static final String MESSAGE =
        "What does the manual say about descaling the machine, and how often should I do it with hard water?";

    private final ActorRef<Write> self;
    private final String tag;
    private final Meter meter;
    private boolean confirmedOnce;

    private Writer(PersistenceId persistenceId, ActorRef<Write> self, String tag, Meter meter) {
      super(persistenceId);
      this.self = self;
      this.tag = tag;
      this.meter = meter;
    }

    static Behavior<Write> create(PersistenceId persistenceId, String tag, Meter meter) {
      return Behaviors.setup(context -> new Writer(persistenceId, context.getSelf(), tag, meter));
    }

    @Override
    public java.util.Set<String> tagsFor(ChatSession.Event event) {
      return java.util.Set.of(tag);
    }

    @Override
    public Long emptyState() {
      return 0L;
    }

    @Override
    public CommandHandler<Write, ChatSession.Event, Long> commandHandler() {
      return newCommandHandlerBuilder().forAnyState().onCommand(Write.class, (state, write) -> {
        long started = System.nanoTime();
        return Effect().persist(event()).thenRun(after -> {
          meter.written(System.nanoTime() - started);
          if (!confirmedOnce) {
            confirmedOnce = true;
            meter.firstWrites.countDown();
          }
          if (meter.running.get()) {
            self.tell(new Write());
          }
        });
      }).build();
    }

    @Override
    public EventHandler<Long, ChatSession.Event> eventHandler() {
      return newEventHandlerBuilder().forAnyState().onAnyEvent((count, event) -> count + 1);
    }

    private static ChatSession.Event event() {
      return new ChatSession.TurnAccepted(randomId(), null, randomId(), randomId(), MESSAGE,
          List.of(new RunSpec(randomId(), "openai-compatible", "mock")), Instant.now());
    }

    /**
     * A random (version 4) UUID, as a turn's ids are, but from {@link ThreadLocalRandom}:
     * {@link UUID#randomUUID()} draws from one {@code SecureRandom} behind one lock, which made a
     * tenth of the node's CPU in this bench (the writers' own, not the journal's).
     */
    private static String randomId() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      long high = (random.nextLong() & ~0xF000L) | 0x4000L;
      long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
      return new UUID(high, low).toString();
    }
  }
}
