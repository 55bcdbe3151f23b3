// The widget on a page of another origin (web/widget-demo, served here on its own port), with the
// tenant's public key: it chats when that origin is allowed and is refused on one that is not.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import { apiKey, baseUrl, launch, newPage, shot } from "./browser.mjs";

const publicKey = process.env.COLLOQUY_PUBLIC_KEY ?? "";
const tokens = Number(process.env.MOCK_TOKENS ?? 60);
const fullAnswer = Array.from({ length: tokens }, (_, i) => `word${i}`).join(" ");
const demo = readFileSync(new URL("../widget-demo/index.html", import.meta.url));
let chromium;
let shop;
let stranger;

/** A static server for the demo page: each one is an origin of its own. */
async function serveDemo() {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end(demo);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

async function tenant(method, path, body) {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
  return response.json();
}

function demoUrl(origin) {
  return `${origin}/?server=${encodeURIComponent(baseUrl)}&key=${encodeURIComponent(publicKey)}&persona=Aria&color=%230066ff`;
}

before(async () => {
  assert.match(publicKey, /^cpk_/, "COLLOQUY_PUBLIC_KEY is the tenant's public key");
  chromium = await launch();
  shop = await serveDemo();
  stranger = await serveDemo();
  await tenant("PUT", "/v1/config", { allowed_origins: [shop.origin] });
});

after(async () => {
  await chromium?.close();
  await shop?.close();
  await stranger?.close();
});

test("on an allowed origin the widget chats in its shadow root, streaming, and ends the session when closed", async () => {
  const { context, page } = await newPage(chromium.browser);
  await page.goto(demoUrl(shop.origin));
  const launcher = page.locator("#colloquy-widget button.launcher");
  await launcher.waitFor();
  assert.equal(await page.evaluate(() => document.getElementById("colloquy-widget").shadowRoot !== null), true);

  // The page's styles stay out of the widget, and the widget's stay out of the page.
  const launcherStyle = await launcher.evaluate((b) => {
    const s = getComputedStyle(b);
    return { background: s.backgroundColor, border: s.borderTopStyle, font: s.fontFamily };
  });
  assert.equal(launcherStyle.background, "rgb(0, 102, 255)");
  assert.equal(launcherStyle.border, "none");
  assert.doesNotMatch(launcherStyle.font, /Georgia/);
  const panelFont = await page.locator("#colloquy-widget .colloquy").evaluate((el) => getComputedStyle(el).fontFamily);
  assert.doesNotMatch(panelFont, /Georgia/, "the page's font is not inherited into the widget");
  const shopButton = await page.locator("button.shop-button").evaluate((b) => {
    const s = getComputedStyle(b);
    return { background: s.backgroundColor, border: s.borderTopStyle };
  });
  assert.deepEqual(shopButton, { background: "rgb(47, 158, 68)", border: "dashed" });
  assert.equal(await page.evaluate(() => document.styleSheets.length), 1, "no style sheet added to the page");

  await launcher.click();
  const box = page.getByLabel("Your message");
  await box.waitFor();
  const started = page.waitForResponse((r) => r.url() === `${baseUrl}/v1/sessions` && r.request().method() === "POST");
  await box.fill("Do you ship tents abroad?");
  await box.press("Enter");
  const opened = await started;
  assert.equal(opened.status(), 201);
  const sessionId = (await opened.json()).session_id;

  const answer = page.locator("#colloquy-widget .bubble.agent.markdown").last();
  await answer.waitFor();
  const seen = new Set();
  while ((await page.locator("#colloquy-widget .turn").last().getAttribute("data-status")) !== "completed") {
    seen.add((await answer.textContent()).trim());
    await page.waitForTimeout(50);
  }
  assert.ok([...seen].filter((t) => t !== fullAnswer).length >= 2, "the answer streamed in");
  assert.equal((await answer.textContent()).replace(/\s+/g, " ").trim(), fullAnswer);
  await shot(page, "widget");

  const ended = page.waitForResponse((r) => r.url() === `${baseUrl}/v1/sessions/${sessionId}/close`);
  await page.getByLabel("Close the chat").click();
  assert.equal((await ended).status(), 200);
  const session = await tenant("GET", `/v1/sessions/${sessionId}`);
  assert.equal(session.status, "closed");
  assert.equal(session.messages.length, 2);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("on an origin the tenant does not allow, the widget is refused and opens no session", async () => {
  const { context, page } = await newPage(chromium.browser);
  await page.goto(demoUrl(stranger.origin));
  await page.locator("#colloquy-widget button.launcher").click();
  const refused = page.waitForResponse((r) => r.url() === `${baseUrl}/v1/sessions` && r.request().method() === "POST");
  await page.getByLabel("Your message").fill("Hello?");
  await page.getByLabel("Your message").press("Enter");
  const response = await refused;
  assert.equal(response.status(), 403);
  await page.locator("#colloquy-widget .problem", { hasText: "not available on this site" }).waitFor();
  await shot(page, "widget-refused");
  assert.equal(await page.locator("#colloquy-widget .bubble.agent.markdown").count(), 0);
  await context.close();
});

test("an escalation in the stream shows that a human agent takes over", async () => {
  // Escalation is the support flow's (issue #13), not on this server yet: this stands in for its
  // `escalation` event by answering the widget's turn with a recorded stream, and checks what the
  // widget shows. Everything else on the page talks to the real server.
  const { context, page } = await newPage(chromium.browser);
  await page.route(`${baseUrl}/v1/sessions/*/turns`, async (route) => {
    const common = { session_id: "s", turn_id: JSON.parse(route.request().postData()).turn_id, trace_id: "0".repeat(32) };
    const frame = (id, event, data) => `event: ${event}\nid: ${id}\ndata: ${JSON.stringify({ ...common, ...data })}\n\n`;
    await route.fulfill({
      status: 200,
      headers: { "Content-Type": "text/event-stream", "Access-Control-Allow-Origin": shop.origin },
      body: frame(1, "turn.started", { run_ids: ["r"] }) + frame(2, "escalation", { reason: "user_requested" })
        + frame(3, "token", { text: "A colleague will be with you shortly.", run_id: "r" })
        + frame(4, "turn.completed", { message_id: "m", text: "A colleague will be with you shortly.", latency_ms: 5,
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost_usd: 0 } }),
    });
  });
  await page.goto(demoUrl(shop.origin));
  await page.locator("#colloquy-widget button.launcher").click();
  await page.getByLabel("Your message").fill("I want to talk to a person");
  await page.getByLabel("Your message").press("Enter");
  await page.locator("#colloquy-widget .escalation", { hasText: "Connecting you to a human agent..." }).waitFor();
  await shot(page, "widget-escalation");
  await context.close();
});
