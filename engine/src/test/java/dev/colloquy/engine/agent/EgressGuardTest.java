package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Internal addresses are refused unless allowed by name, address or block; public ones pass. */
class EgressGuardTest {

  private final EgressGuard closed = new EgressGuard(List.of());

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://10.1.2.3/hook",
      "http://172.16.0.1/hook", "http://192.168.1.1/hook", "http://169.254.169.254/latest/meta-data",
      "http://[::1]/hook", "http://[fd00::1]/hook", "http://[fe80::1]/hook", "http://0.0.0.0/hook",
      "http://100.64.0.1/hook", "http://[::ffff:127.0.0.1]/hook"})
  void internalAddressesAreRefused(String url) {
    assertThatThrownBy(() -> closed.check(URI.create(url))).isInstanceOf(EgressGuard.Refused.class)
        .hasMessageContaining("internal address");
  }

  @Test
  void aPublicAddressPasses() {
    assertThatCode(() -> closed.check(URI.create("https://93.184.215.14/hook"))).doesNotThrowAnyException();
  }

  @Test
  void otherSchemesAreRefused() {
    assertThatThrownBy(() -> closed.check(URI.create("file:///etc/passwd"))).isInstanceOf(EgressGuard.Refused.class)
        .hasMessageContaining("http and https");
  }

  @Test
  void theOperatorMayAllowHostsAddressesAndBlocks() throws Exception {
    EgressGuard open = new EgressGuard(List.of("localhost", "127.0.0.1", "10.0.0.0/8", "fd00::/8"));
    open.check(URI.create("http://localhost:9000/hook"));
    open.check(URI.create("http://127.0.0.1:9000/hook"));
    open.check(URI.create("http://10.200.1.1/hook"));
    open.check(URI.create("http://[fd12::1]/hook"));
    assertThatThrownBy(() -> open.check(URI.create("http://192.168.0.1/hook"))).isInstanceOf(EgressGuard.Refused.class);
  }
}
