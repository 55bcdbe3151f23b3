package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes manifests validate against the Kubernetes API's schemas and docker-compose.yml
 * against the Compose specification (deploy/check, without kubectl or Docker), and both say what a
 * Colloquy cluster needs: probes on the management endpoints, a grace period longer than the drain,
 * discovery the pods can use, a disruption budget that keeps a majority, bootstrap in compose.
 */
class DeploymentFilesTest {

  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  @Test
  void theManifestsAndTheComposeFileAreValidAndFormACluster() throws Exception {
    NodeProject check = NodeProject.installed("deploy/check");

    NodeProject.Run run = check.node("check.mjs", List.of(), Map.of(), TIMEOUT);

    assertThat(run.exitCode()).as(run.output()).isZero();
    JsonNode result = Api.JSON.readTree(run.stdout());
    assertThat(result.path("problems")).as(run.output()).isEmpty();
    assertThat(result.path("documents")).extracting(JsonNode::asText).contains("deployment.yaml:Deployment",
        "pdb.yaml:PodDisruptionBudget", "rbac.yaml:Role", "rbac.yaml:RoleBinding", "service.yaml:Service");
    JsonNode facts = result.path("facts");
    assertThat(facts.path("readiness").asText()).isEqualTo("/ready on management");
    assertThat(facts.path("terminationGracePeriodSeconds").asInt()).isGreaterThanOrEqualTo(50);
    assertThat(facts.path("composeNodes").asInt()).isEqualTo(3);
  }

  @Test
  void brokenFilesAreNamedWithWhatIsWrong(@TempDir Path copy) throws Exception {
    NodeProject check = NodeProject.installed("deploy/check");
    Path repository = NodeProject.repository();
    Path manifests = Files.createDirectories(copy.resolve("deploy/kubernetes"));
    try (var files = Files.list(repository.resolve("deploy/kubernetes"))) {
      for (Path file : files.toList()) {
        Files.copy(file, manifests.resolve(file.getFileName()));
      }
    }
    Path deployment = manifests.resolve("deployment.yaml");
    Files.writeString(deployment, Files.readString(deployment)
        .replace("terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 10")
        .replace("replicas: 3", "replicas: three"));
    Files.writeString(copy.resolve("docker-compose.yml"), Files.readString(repository.resolve("docker-compose.yml"))
        .replace("stop_grace_period: 60s", "stop_grace_period: a minute")
        .replace("COLLOQUY_CLUSTER_DISCOVERY: config", "COLLOQUY_CLUSTER_DISCOVERY: seed-nodes"));

    NodeProject.Run run = check.node("check.mjs", List.of(copy.toString()), Map.of(), TIMEOUT);

    assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
    String problems = Api.JSON.readTree(run.stdout()).path("problems").toString();
    assertThat(problems).contains("deployment.yaml Deployment/colloquy", "replicas")
        .contains("docker-compose.yml", "stop_grace_period")
        .contains("colloquy-1 does not use Cluster Bootstrap");
  }
}
