package dev.colloquy.http.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Directives;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed web bundle as a node serves it, over real HTTP: the page with its security policy,
 * hashed assets kept by browsers, the widget's script for any site, and the development key only for
 * this machine in development.
 */
class WebAssetsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient client = HttpClient.newHttpClient();
  private static ActorTestKit testKit;
  private static ServerBinding binding;
  private static String base;
  private static ServerBinding production;
  private static String productionBase;

  @TempDir
  static Path dataDir;

  @BeforeAll
  static void start() throws Exception {
    testKit = ActorTestKit.create("web", ConfigFactory.parseString("pekko.http.server.remote-address-attribute = on")
        .withFallback(ConfigFactory.load()));
    Path keyFile = dataDir.resolve("dev-api-key");
    Files.writeString(keyFile, "ck_0123456789abcdef_" + "ab".repeat(32) + "\n");
    binding = bind(new WebAssets(DevKeyOffer.of(keyFile)));
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    production = bind(new WebAssets(DevKeyOffer.none()));
    productionBase = "http://127.0.0.1:" + production.localAddress().getPort();
  }

  private static ServerBinding bind(WebAssets assets) throws Exception {
    return Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
        .bind(Directives.concat(assets.route(), Directives.complete(org.apache.pekko.http.javadsl.model.StatusCodes.IM_A_TEAPOT)))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    production.unbind();
    testKit.shutdownTestKit();
  }

  private static HttpResponse<String> get(String url, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void thePageIsServedWithAPolicyThatLetsNoOtherScriptRun() throws Exception {
    HttpResponse<String> page = get(base + "/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
    assertThat(page.body()).contains("<div id=\"app\"></div>");
    String policy = page.headers().firstValue("Content-Security-Policy").orElseThrow();
    assertThat(policy).contains("script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'")
        .doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:");
    assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
    assertThat(get(base + "/index.html").body()).isEqualTo(page.body());
    assertThat(page.body()).doesNotContain("http://", "https://");
  }

  @Test
  void theHashedAssetsThePageNamesAreServedAndKeptByBrowsers() throws Exception {
    String page = get(base + "/").body();
    Matcher assets = Pattern.compile("/assets/[A-Za-z0-9_.-]+\\.(js|css)").matcher(page);
    int found = 0;
    while (assets.find()) {
      found++;
      HttpResponse<String> asset = get(base + assets.group());
      assertThat(asset.statusCode()).as(assets.group()).isEqualTo(200);
      assertThat(asset.headers().firstValue("Cache-Control")).hasValue("public, max-age=31536000, immutable");
      assertThat(asset.headers().firstValue("Content-Type").orElseThrow())
          .startsWith(assets.group(1).equals("js") ? "application/javascript" : "text/css");
      assertThat(asset.body()).doesNotContain("https://fonts.", "cdn.");
    }
    assertThat(found).as("scripts and styles in the page").isGreaterThanOrEqualTo(2);
    assertThat(get(base + "/assets/missing.js").statusCode()).isEqualTo(418);
  }

  @Test
  void theDevelopmentKeyIsOfferedToThisMachineOnly() throws Exception {
    HttpResponse<String> offered = get(base + "/web/dev-key");
    assertThat(offered.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(offered.body()).path("api_key").asText()).startsWith("ck_0123456789abcdef_");
    assertThat(offered.headers().firstValue("Cache-Control")).hasValue("no-store");
    assertThat(offered.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();

    assertNotOffered(get(base + "/web/dev-key", "Sec-Fetch-Site", "cross-site"));
    assertNotOffered(get(base + "/web/dev-key", "Sec-Fetch-Site", "same-site"));
    assertNotOffered(get(productionBase + "/web/dev-key"));
  }

  @Test
  void aRequestFromAnotherMachineOrForAnotherHostNameIsNotFromThisMachine() {
    var loopback = RemoteAddress.create(new InetSocketAddress("127.0.0.1", 50000));
    var remote = RemoteAddress.create(new InetSocketAddress("192.0.2.7", 50000));
    var request = org.apache.pekko.http.javadsl.model.HttpRequest.GET("/web/dev-key");
    assertThat(DevKeyOffer.fromThisMachine(request.addAttribute(AttributeKeys.remoteAddress, loopback)
        .addHeader(RawHeader.create("Host", "localhost:8080")))).isTrue();
    assertThat(DevKeyOffer.fromThisMachine(request.addAttribute(AttributeKeys.remoteAddress, remote)
        .addHeader(RawHeader.create("Host", "localhost:8080")))).isFalse();
    // A page of another site whose name was rebound to 127.0.0.1 sends its own name as Host.
    assertThat(DevKeyOffer.fromThisMachine(request.addAttribute(AttributeKeys.remoteAddress, loopback)
        .addHeader(RawHeader.create("Host", "attacker.example:8080")))).isFalse();
    assertThat(DevKeyOffer.fromThisMachine(request.addHeader(RawHeader.create("Host", "localhost")))).isFalse();
    assertThat(DevKeyOffer.isLoopbackName("[::1]:8080")).isTrue();
    assertThat(DevKeyOffer.isLoopbackName("127.0.0.1")).isTrue();
    assertThat(DevKeyOffer.isLoopbackName("127.0.0.1.attacker.example")).isFalse();
    assertThat(DevKeyOffer.isLoopbackName("localhost.attacker.example")).isFalse();
  }

  private static void assertNotOffered(HttpResponse<String> response) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(404);
    JsonNode error = JSON.readTree(response.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("NOT_FOUND");
    assertThat(error.path("message").asText()).contains("development key");
    assertThat(error.path("trace_id").asText()).hasSize(32);
    assertThat(response.body()).doesNotContain("ck_");
  }
}
