package dev.colloquy.engine.model;

import java.util.List;

/** Turns texts into vectors of a fixed dimension. Blocking: call it off the actors' dispatcher. */
public interface EmbeddingModel {

  String name();

  int dimensions();

  List<float[]> embed(List<String> texts);
}
