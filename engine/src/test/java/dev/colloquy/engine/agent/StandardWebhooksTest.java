package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The signature of the Standard Webhooks specification's own example. */
class StandardWebhooksTest {

  @Test
  void signsTheSpecificationsExample() {
    String signature = StandardWebhooks.signature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330, "{\"test\": 2432232314}");
    assertThat(signature).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }
}
