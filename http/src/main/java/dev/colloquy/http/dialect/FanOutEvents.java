package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.util.ByteString;

/**
 * A turn's frames as the fan-out seed's events, each carrying {@code type, turnId, runId, provider,
 * model, timestamp}: {@code run_started} per run, {@code delta {textDelta}}, {@code usage} then
 * {@code run_done {finalText, latencyMs}} when a run completes, {@code run_error {errorCode,
 * errorMessage}} when one fails, and for a turn cancelled or interrupted, {@code run_error} for each
 * run this stream has not seen end. The frame's id goes on the last event it becomes, for
 * {@code Last-Event-ID}; a frame that becomes none (retrieval, the turn's end) is sent as its id alone,
 * which moves an EventSource's last event id without an event, so that after the turn's end a
 * reconnecting client gets 204 and stops. {@code timestamp} is when the event is sent. One instance per stream.
 */
final class FanOutEvents {

  /** The common fields: the seed's names, in the seed's order. */
  private record Common(String type, String turnId, String runId, String provider, String model, String timestamp) {}

  record RunStarted(String type, String turnId, String runId, String provider, String model, String timestamp) {}

  record Delta(String type, String turnId, String runId, String provider, String model, String timestamp,
      String textDelta) {}

  record UsageEvent(String type, String turnId, String runId, String provider, String model, String timestamp,
      long promptTokens, long completionTokens, long totalTokens, double costUsd) {}

  record RunDone(String type, String turnId, String runId, String provider, String model, String timestamp,
      String finalText, long latencyMs) {}

  record RunError(String type, String turnId, String runId, String provider, String model, String timestamp,
      String errorCode, String errorMessage) {}

  private final String turnId;
  private final Map<String, RunSpec> runs = new LinkedHashMap<>();
  private final Set<String> ended = new HashSet<>();
  private final Clock clock;

  FanOutEvents(String turnId, List<RunSpec> runs, Clock clock) {
    this.turnId = turnId;
    runs.forEach(run -> this.runs.put(run.runId(), run));
    this.clock = clock;
  }

  List<ByteString> events(TurnFrame frame) {
    List<Object> events = switch (frame.event()) {
      case StreamEvent.Started started ->
          started.runIds().stream().map(runId -> (Object) started(common("run_started", runId))).toList();
      case StreamEvent.Token token -> {
        Common c = common("delta", token.runId());
        yield List.of(new Delta(c.type(), c.turnId(), c.runId(), c.provider(), c.model(), c.timestamp(), token.text()));
      }
      case StreamEvent.RunCompleted completed -> done(completed.run());
      case StreamEvent.RunFailed failed -> List.of(error(failed.runId(), failed.code(), failed.message()));
      case TurnEnding.Failed failed -> unended(failed.code(), failed.message());
      case TurnEnding.Cancelled cancelled -> unended("CANCELLED", "The turn was cancelled: " + cancelled.reason());
      case TurnEnding.Completed completed -> List.of();
      case StreamEvent.Retrieved retrieved -> List.of();
      case StreamEvent.GapFound gap -> List.of();
      case StreamEvent.IntentRouted routed -> List.of();
      case StreamEvent.Escalated escalated -> List.of();
      case StreamEvent.Restarted restarted -> restarted(restarted.runIds());
      case StreamEvent.ToolEvent tool -> List.of();
    };
    if (events.isEmpty()) {
      return List.of(DialectSse.idOnly(frame.id()));
    }
    List<ByteString> bytes = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      String json = CamelCaseJson.write(events.get(i));
      bytes.add(i == events.size() - 1 ? DialectSse.data(frame.id(), json) : DialectSse.data(json));
    }
    return bytes;
  }

  private List<Object> done(RunOutcome run) {
    ended.add(run.runId());
    Common usage = common("usage", run.runId());
    Common done = common("run_done", run.runId());
    return List.of(
        new UsageEvent(usage.type(), turnId, run.runId(), usage.provider(), usage.model(), usage.timestamp(),
            run.usage().promptTokens(), run.usage().completionTokens(), run.usage().totalTokens(), run.usage().costUsd()),
        new RunDone(done.type(), turnId, run.runId(), done.provider(), done.model(), done.timestamp(), run.text(),
            run.latencyMs()));
  }

  private RunError error(String runId, String code, String message) {
    ended.add(runId);
    Common c = common("run_error", runId);
    return new RunError(c.type(), c.turnId(), c.runId(), c.provider(), c.model(), c.timestamp(), code, message);
  }

  /** A turn that ends without every run having ended ends them: each gets the turn's failure. */
  private List<Object> unended(String code, String message) {
    return runs.keySet().stream().filter(runId -> !ended.contains(runId))
        .map(runId -> (Object) error(runId, code, message)).toList();
  }

  /**
   * Another node runs the turn again with new runs of the same models, in the same order: the runs
   * this stream has not seen end get {@code run_error} {@code TURN_RESTARTED}, the new ones
   * {@code run_started}, and their deltas write each answer again from the start.
   */
  private List<Object> restarted(List<String> newRunIds) {
    List<RunSpec> known = new ArrayList<>(runs.values());
    List<RunSpec> attempt = known.subList(Math.max(0, known.size() - newRunIds.size()), known.size());
    List<Object> events = new ArrayList<>();
    runs.keySet().stream().filter(runId -> !ended.contains(runId) && !newRunIds.contains(runId))
        .forEach(runId -> events.add(error(runId, AnsweringRun.RESTARTED,
            "The server running this run was lost; a new run writes its answer again from the start")));
    for (int i = 0; i < newRunIds.size(); i++) {
      RunSpec before = i < attempt.size() ? attempt.get(i) : null;
      runs.putIfAbsent(newRunIds.get(i), new RunSpec(newRunIds.get(i), before == null ? null : before.provider(),
          before == null ? null : before.model()));
      events.add(started(common("run_started", newRunIds.get(i))));
    }
    return events;
  }

  private RunStarted started(Common c) {
    return new RunStarted(c.type(), c.turnId(), c.runId(), c.provider(), c.model(), c.timestamp());
  }

  private Common common(String type, String runId) {
    RunSpec run = runs.get(runId);
    return new Common(type, turnId, runId, run == null ? null : run.provider(), run == null ? null : run.model(),
        clock.instant().toString());
  }
}
