package dev.colloquy.app;

import dev.colloquy.engine.observe.EngineMetrics;
import dev.colloquy.http.HttpMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's metrics in a Micrometer registry of its own (several nodes may share a JVM in tests),
 * scraped as Prometheus text at {@code GET /metrics}. Tags are bounded: model names come from the
 * configuration, codes are the API's stable error codes; session ids never become tags.
 */
final class PrometheusMetrics implements EngineMetrics, HttpMetrics, AutoCloseable {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final AtomicLong streamsOpen = new AtomicLong();
  private final AtomicLong sessionsActive = new AtomicLong();
  private final Counter streamsOpened;
  private final Counter streamsClosed;
  private final Timer firstFrame;
  private final Timer firstToken;
  private final Counter sessionsPassivated;
  private final Timer journalWrite;

  PrometheusMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    Gauge.builder("colloquy.streams.open", streamsOpen, AtomicLong::get)
        .description("Turn event streams being served now").register(registry);
    Gauge.builder("colloquy.sessions.active", sessionsActive, AtomicLong::get)
        .description("Sessions in memory on this node").register(registry);
    streamsOpened = Counter.builder("colloquy.streams.opened").description("Turn event streams opened").register(registry);
    streamsClosed = Counter.builder("colloquy.streams.closed").description("Turn event streams closed").register(registry);
    firstFrame = latency("colloquy.stream.first.frame", "From a turn request to the first event of its stream");
    firstToken = latency("colloquy.stream.first.token", "From a turn request to the first token event of its stream");
    sessionsPassivated = Counter.builder("colloquy.sessions.passivated")
        .description("Sessions that left memory while idle, still open").register(registry);
    journalWrite = latency("colloquy.journal.write", "From a session's persist to the journal's confirmation");
  }

  private Timer latency(String name, String description) {
    return Timer.builder(name).description(description).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(2)).register(registry);
  }

  String scrape() {
    return registry.scrape();
  }

  @Override
  public void streamOpened() {
    streamsOpen.incrementAndGet();
    streamsOpened.increment();
  }

  @Override
  public void streamClosed() {
    streamsOpen.decrementAndGet();
    streamsClosed.increment();
  }

  @Override
  public void firstFrame(Duration latency) {
    firstFrame.record(latency);
  }

  @Override
  public void firstToken(Duration latency) {
    firstToken.record(latency);
  }

  @Override
  public void errorResponse(int status, String code) {
    error("http", code);
  }

  @Override
  public void sessionLoaded() {
    sessionsActive.incrementAndGet();
  }

  @Override
  public void sessionUnloaded() {
    sessionsActive.decrementAndGet();
  }

  @Override
  public void sessionPassivated() {
    sessionsPassivated.increment();
  }

  @Override
  public void sessionClosed(String reason) {
    // The reason of an explicit close is the client's free text: only the known ones become tags.
    String tag = reason.equals("idle") || reason.equals("closed") ? reason : "other";
    registry.counter("colloquy.sessions.closed", "reason", tag).increment();
  }

  @Override
  public void journalWrite(Duration latency) {
    journalWrite.record(latency);
  }

  @Override
  public void turnEnded(String outcome, Duration latency) {
    Timer.builder("colloquy.turn.latency").description("From a turn's start to its outcome, by outcome")
        .tag("outcome", outcome).publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(5))
        .register(registry).record(latency);
  }

  @Override
  public void tokens(String model, long in, long out) {
    registry.counter("colloquy.tokens", "model", model, "direction", "in").increment(in);
    registry.counter("colloquy.tokens", "model", model, "direction", "out").increment(out);
  }

  @Override
  public void error(String source, String code) {
    registry.counter("colloquy.errors", "source", source, "code", code).increment();
  }

  @Override
  public void intentRouted(String intent) {
    registry.counter("colloquy.agent.intents", "intent", intent).increment();
  }

  @Override
  public void escalated(String reason) {
    registry.counter("colloquy.agent.escalations", "reason", reason).increment();
  }

  @Override
  public void webhookAttempt(String outcome) {
    registry.counter("colloquy.agent.webhook.attempts", "outcome", outcome).increment();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
