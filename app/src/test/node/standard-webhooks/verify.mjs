// Verifies one webhook delivery with the Standard Webhooks reference library. Input from the
// environment: WEBHOOK_SECRET (whsec_...), WEBHOOK_ID, WEBHOOK_TIMESTAMP, WEBHOOK_SIGNATURE,
// WEBHOOK_BODY. Prints the verified payload and exits 0, or prints why and exits 1.
import { Webhook } from "standardwebhooks";

const env = process.env;
try {
  const payload = new Webhook(env.WEBHOOK_SECRET).verify(env.WEBHOOK_BODY, {
    "webhook-id": env.WEBHOOK_ID,
    "webhook-timestamp": env.WEBHOOK_TIMESTAMP,
    "webhook-signature": env.WEBHOOK_SIGNATURE,
  });
  console.log(JSON.stringify(payload));
} catch (error) {
  console.log("not verified: " + error.message);
  process.exit(1);
}
