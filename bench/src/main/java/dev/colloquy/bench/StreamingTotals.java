package dev.colloquy.bench;

import java.util.List;
import org.HdrHistogram.Histogram;

/** Several streaming runs of one kind together: turns over the summed run times, the latencies of all their turns. */
record StreamingTotals(int turns, double seconds, Histogram addedTtft, Histogram turn) {

  static StreamingTotals of(List<StreamingLoad.Result> results) {
    Histogram addedTtft = new Histogram(3);
    Histogram turn = new Histogram(3);
    int turns = 0;
    double seconds = 0;
    for (StreamingLoad.Result result : results) {
      turns += result.turns();
      seconds += result.seconds();
      addedTtft.add(result.addedTtftMicros());
      turn.add(result.turnMicros());
    }
    return new StreamingTotals(turns, seconds, addedTtft, turn);
  }

  double turnsPerSecond() {
    return turns / seconds;
  }
}
