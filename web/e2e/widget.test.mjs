// The widget on a page of another origin (web/widget-demo, served here on its own port), with the
// tenant's public key, speaking the support agent's API (seed 004): it chats when that origin is
// allowed and is refused on one that is not, shows the tab's conversation again after a reload, and
// says when a human agent takes over.
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

/** A tenant's webhook receiver: it keeps the bodies it is sent and answers 204. */
async function receiveWebhooks() {
  const received = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push(JSON.parse(body));
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    /** The first webhook that matches, once it has arrived. */
    async until(matches) {
      for (let tries = 0; tries < 300; tries++) {
        const found = received.find(matches);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.fail(`no such webhook arrived in 30 s; received: ${JSON.stringify(received)}`);
    },
    close: () => new Promise((r) => server.close(r)),
  };
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

/** The text of the widget's last answer, white space folded, once that exchange is completed. */
async function lastAnswer(page) {
  await page.locator("#colloquy-widget .turn").last().and(page.locator("[data-status=completed]")).waitFor();
  return (await page.locator("#colloquy-widget .bubble.agent.markdown").last().textContent()).replace(/\s+/g, " ").trim();
}

function isPost(path) {
  return (r) => r.url() === `${baseUrl}${path}` && r.request().method() === "POST";
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
  const started = page.waitForResponse(isPost("/v1/session/start"));
  const asked = page.waitForRequest((r) => r.url() === `${baseUrl}/v1/chat/message` && r.method() === "POST");
  await box.fill("Do you ship tents abroad?");
  await box.press("Enter");
  const opened = await started;
  assert.equal(opened.status(), 200);
  const sessionId = (await opened.json()).session_id;
  const message = await asked;
  assert.deepEqual(message.postDataJSON(), { session_id: sessionId, message: "Do you ship tents abroad?", stream: true });
  assert.match(message.headers()["x-api-key"], /^cpk_/);
  assert.equal(message.headers().authorization, undefined, "the public key goes in X-API-Key, as seed 004 has it");

  const answer = page.locator("#colloquy-widget .bubble.agent.markdown").last();
  await answer.waitFor();
  const seen = new Set();
  while ((await page.locator("#colloquy-widget .turn").last().getAttribute("data-status")) !== "completed") {
    seen.add((await answer.textContent()).trim());
    await page.waitForTimeout(50);
  }
  assert.ok([...seen].filter((t) => t !== fullAnswer).length >= 2, "the answer streamed in");
  assert.equal(await lastAnswer(page), fullAnswer);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("colloquy.widget.session")), sessionId);
  assert.equal(await page.locator("#colloquy-widget .escalation").count(), 0, "no escalation for a plain answer");
  await shot(page, "widget");

  const ended = page.waitForResponse(isPost(`/v1/session/${sessionId}/end`));
  await page.getByLabel("Close the chat").click();
  const end = await ended;
  assert.equal(end.status(), 200);
  assert.equal((await end.json()).status, "resolved");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("colloquy.widget.session")), null);
  const session = await tenant("GET", `/v1/sessions/${sessionId}`);
  assert.equal(session.status, "closed");
  assert.equal(session.messages.length, 2);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("after a reload the widget shows the tab's conversation again and goes on in the same session", async () => {
  const { context, page } = await newPage(chromium.browser);
  await page.goto(demoUrl(shop.origin));
  await page.locator("#colloquy-widget button.launcher").click();
  const started = page.waitForResponse(isPost("/v1/session/start"));
  await page.getByLabel("Your message").fill("Which tent sleeps four?");
  await page.getByLabel("Your message").press("Enter");
  const sessionId = (await (await started).json()).session_id;
  assert.equal(await lastAnswer(page), fullAnswer);

  const transcript = page.waitForResponse((r) => r.url() === `${baseUrl}/v1/session/${sessionId}/transcript`);
  await page.reload();
  assert.equal((await transcript).status(), 200);
  const earlier = page.locator("#colloquy-widget .turn[data-status=earlier]");
  await earlier.waitFor();
  assert.equal(await earlier.count(), 1);
  assert.equal(await earlier.locator(".bubble.user").textContent(), "Which tent sleeps four?");
  assert.equal((await earlier.locator(".bubble.agent.markdown").textContent()).replace(/\s+/g, " ").trim(), fullAnswer);
  await shot(page, "widget-reloaded");

  let startedAgain = false;
  page.on("request", (r) => { if (r.url() === `${baseUrl}/v1/session/start`) startedAgain = true; });
  const asked = page.waitForRequest((r) => r.url() === `${baseUrl}/v1/chat/message` && r.method() === "POST");
  await page.getByLabel("Your message").fill("And does it come with poles?");
  await page.getByLabel("Your message").press("Enter");
  assert.equal((await asked).postDataJSON().session_id, sessionId);
  assert.equal(await lastAnswer(page), fullAnswer);
  assert.equal(startedAgain, false, "no second session");
  assert.equal((await tenant("GET", `/v1/sessions/${sessionId}`)).messages.length, 4);

  // Another tab is another conversation: its own visitor and no session yet.
  const other = await context.newPage();
  await other.goto(demoUrl(shop.origin));
  await other.locator("#colloquy-widget button.launcher").waitFor();
  assert.equal(await other.evaluate(() => sessionStorage.getItem("colloquy.widget.session")), null);
  assert.notEqual(await other.evaluate(() => sessionStorage.getItem("colloquy.widget.visitor")),
    await page.evaluate(() => sessionStorage.getItem("colloquy.widget.visitor")));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("on an origin the tenant does not allow, the widget is refused and opens no session", async () => {
  const { context, page } = await newPage(chromium.browser);
  await page.goto(demoUrl(stranger.origin));
  await page.locator("#colloquy-widget button.launcher").click();
  const refused = page.waitForResponse(isPost("/v1/session/start"));
  await page.getByLabel("Your message").fill("Hello?");
  await page.getByLabel("Your message").press("Enter");
  const response = await refused;
  assert.equal(response.status(), 403);
  assert.equal((await response.json()).error.code, "ORIGIN_NOT_ALLOWED");
  await page.locator("#colloquy-widget .problem", { hasText: "not available on this site" }).waitFor();
  await shot(page, "widget-refused");
  assert.equal(await page.locator("#colloquy-widget .bubble.agent.markdown").count(), 0);
  assert.equal(await page.locator("#colloquy-widget .bubble.user").textContent(), "Hello?", "the message stays on screen");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("colloquy.widget.session")), null);
  await context.close();
});

test("when the visitor asks for a person, the tenant's escalation rule hands the session to a human and the widget says so", async () => {
  // The real rule decides: a tenant with an escalation webhook hands the session over when the user
  // asks for a human. The webhook goes to a receiver on this machine (the server lets it through
  // with COLLOQUY_EGRESS_ALLOW), which is where the human would pick the conversation up.
  const hooks = await receiveWebhooks();
  await tenant("PUT", "/v1/config", { escalation_webhook_url: hooks.url });
  try {
    const { context, page } = await newPage(chromium.browser);
    await page.goto(demoUrl(shop.origin));
    await page.locator("#colloquy-widget button.launcher").click();
    const started = page.waitForResponse(isPost("/v1/session/start"));
    await page.getByLabel("Your message").fill("I want to talk to a human");
    await page.getByLabel("Your message").press("Enter");
    const sessionId = (await (await started).json()).session_id;
    const notice = page.locator("#colloquy-widget .escalation", { hasText: "Connecting you to a human agent..." });
    await notice.waitFor();
    assert.match(await lastAnswer(page), /I'm connecting you to a human agent who will continue this conversation here\./);
    // The notice is the widget's reading of the last frame's escalation_required; the frame itself is
    // asserted by the server's tests (Chromium may not keep a streamed fetch's body for the test to read).
    await shot(page, "widget-escalation");

    const handedOver = await hooks.until((h) => h.event === "escalation" && h.session_id === sessionId);
    assert.equal(handedOver.escalation_reason, "user_requested");
    assert.equal(handedOver.last_user_message, "I want to talk to a human");
    const session = await tenant("GET", `/v1/sessions/${sessionId}`);
    assert.equal(session.status, "escalated");

    // While the human has the session, what the visitor writes goes to them.
    await page.getByLabel("Your message").fill("Is anyone there?");
    await page.getByLabel("Your message").press("Enter");
    await page.locator("#colloquy-widget .turn").nth(1).and(page.locator("[data-status=completed]")).waitFor();
    assert.equal(await lastAnswer(page), "Your message has been passed to the human agent handling this conversation.");
    const forwarded = await hooks.until((h) => h.event === "handoff_message" && h.session_id === sessionId);
    assert.equal(forwarded.message, "Is anyone there?");
    assert.equal(await notice.count(), 1);
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await tenant("PUT", "/v1/config", { escalation_webhook_url: "" });
    await hooks.close();
  }
});
