package dev.colloquy.config;

/** What a model costs, in US dollars per million prompt and completion tokens. */
public record ModelPrice(double inputPerMillion, double outputPerMillion) {

  public static final ModelPrice FREE = new ModelPrice(0, 0);

  public double cost(long promptTokens, long completionTokens) {
    return (promptTokens * inputPerMillion + completionTokens * outputPerMillion) / 1_000_000.0;
  }
}
