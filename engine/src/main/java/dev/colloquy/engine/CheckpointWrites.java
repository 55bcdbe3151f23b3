package dev.colloquy.engine;

import java.util.concurrent.Semaphore;

/**
 * The turns' checkpoints this node is writing to the journal at once, at most a bound: a session takes
 * a place before it persists a checkpoint and gives it back once the write has ended, and a checkpoint
 * that finds no place is left to the turn's next interval. The journal's other writes (a turn's
 * acceptance, its end) are bounded by the node's admission and by the turns themselves; without this,
 * every running turn could have a checkpoint queued at once. Node-local: one per running application.
 */
public final class CheckpointWrites {

  private final Semaphore places;

  public CheckpointWrites(int max) {
    this.places = new Semaphore(max);
  }

  /** Takes a place for one checkpoint write; false when as many are being written as the bound allows. */
  public boolean tryStart() {
    return places.tryAcquire();
  }

  /** The write has ended (journaled, or its session stopped): its place is free again. */
  public void ended() {
    places.release();
  }

  /** Places free now; for tests. */
  public int free() {
    return places.availablePermits();
  }
}
