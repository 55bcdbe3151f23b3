package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/API.md, what users read, describes every operation of the OpenAPI document and no other. */
class ApiReferenceTest {

  private static final Path REFERENCE = Path.of("..", "docs", "API.md");
  private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch");
  private static final Pattern OPERATION_HEADING = Pattern.compile("(?m)^### `([A-Z]+) (/\\S*)`$");

  @Test
  void everyOperationOfTheOpenApiDocumentIsDescribedAndNoOther() throws Exception {
    JsonNode paths = new YAMLMapper().readTree(OpenApiRoutes.read()).path("paths");
    Set<String> documented = new TreeSet<>();
    paths.properties().forEach(path -> path.getValue().fieldNames().forEachRemaining(method -> {
      if (HTTP_METHODS.contains(method)) {
        documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
      }
    }));

    Set<String> described = new TreeSet<>();
    Matcher headings = OPERATION_HEADING.matcher(Files.readString(REFERENCE));
    while (headings.find()) {
      described.add(headings.group(1) + " " + headings.group(2));
    }

    assertThat(described).isEqualTo(documented);
  }

  @Test
  void theReferenceNeedsNothingOutsideTheRepository() throws Exception {
    assertThat(Files.readString(REFERENCE)).doesNotContain("../shared").doesNotContain("/work/");
    assertThat(Files.readString(Path.of("..", "README.md"))).doesNotContain("../shared").doesNotContain("/work/");
  }
}
