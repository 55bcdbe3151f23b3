package dev.colloquy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.bench.RetrievalBench.EvalFixtures;
import dev.colloquy.bench.RetrievalBench.EvalQuestion;
import dev.colloquy.bench.RetrievalBench.EvalSet;
import dev.colloquy.bench.RetrievalBench.Hit;
import dev.colloquy.bench.RetrievalBench.Mode;
import dev.colloquy.bench.RetrievalBench.Quality;
import dev.colloquy.ingestion.embed.MiniLmEmbeddingModel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The shipped evaluation set, with the real in-process model: a check of the set and of hybrid retrieval on it. */
class RetrievalBenchTest {

  private static final Path EVAL_DIR = Path.of("..", "bench", "eval");

  @Test
  void hybridBeatsDenseAndBm25OnRecallAndMrrAndEveryExpectedSectionExists() throws Exception {
    EvalSet set = EvalSet.read(EVAL_DIR);

    Quality quality = RetrievalBench.evaluate(set, new MiniLmEmbeddingModel());

    for (EvalQuestion question : set.questions()) {
      assertThat(quality.sections())
          .as("the section that answers '%s'", question.question())
          .anySatisfy(section -> assertThat(question.answeredBy(section)).isTrue());
    }
    double hybrid = quality.scores().get(Mode.HYBRID).recallAt5();
    assertThat(hybrid).as(quality.markdown(set))
        .isGreaterThan(quality.scores().get(Mode.DENSE).recallAt5())
        .isGreaterThan(quality.scores().get(Mode.BM25).recallAt5());
    assertThat(quality.scores().get(Mode.HYBRID).mrr()).as(quality.markdown(set))
        .isGreaterThan(quality.scores().get(Mode.DENSE).mrr())
        .isGreaterThan(quality.scores().get(Mode.BM25).mrr());
  }

  @Test
  void theDocxAndPdfDocumentsAreThoseTheirSourcesGenerate() throws Exception {
    for (String document : EvalSet.read(EVAL_DIR).documents()) {
      Path source = EVAL_DIR.resolve("sources").resolve(document + ".md");
      if (document.endsWith(".docx")) {
        assertThat(EvalFixtures.docx(EvalFixtures.blocks(Files.readString(source)))).as(document)
            .isEqualTo(Files.readAllBytes(EVAL_DIR.resolve(document)));
      } else if (document.endsWith(".pdf")) {
        assertThat(EvalFixtures.pdf(EvalFixtures.blocks(Files.readString(source)))).as(document)
            .isEqualTo(Files.readAllBytes(EVAL_DIR.resolve(document)));
      }
    }
  }

  @Test
  void aHitAnswersWhenFileAndSectionMatchOrTheFileHasNoSections() {
    EvalQuestion sectioned = new EvalQuestion("q", "manual.md", "Descaling", "exact");
    EvalQuestion plain = new EvalQuestion("q", "rules.txt", "", "paraphrase");

    assertThat(sectioned.answeredBy(new Hit("manual.md", "Descaling"))).isTrue();
    assertThat(sectioned.answeredBy(new Hit("manual.md", "Warranty"))).isFalse();
    assertThat(sectioned.answeredBy(new Hit("other.md", "Descaling"))).isFalse();
    assertThat(plain.answeredBy(new Hit("rules.txt", ""))).isTrue();
    assertThat(plain.answeredBy(new Hit("other.txt", ""))).isFalse();
  }
}
