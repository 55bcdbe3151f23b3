package dev.colloquy.engine;

/**
 * Marks every message, event and state that Pekko serializes (journal, snapshots, other nodes).
 * Bound to jackson-cbor once, in this module's reference.conf.
 */
public interface CborSerializable {}
