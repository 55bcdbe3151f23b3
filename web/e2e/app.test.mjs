// The web app in the machine's Chromium against a real Colloquy with the mock model, which answers
// MOCK_TOKENS tokens "word0 word1 …" (run by WebAppBrowserIntegrationTest).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { apiKey, baseUrl, launch, newPage, shot, signIn } from "./browser.mjs";
import { startProxy } from "./proxy.mjs";

const tokens = Number(process.env.MOCK_TOKENS ?? 60);
const fullAnswer = Array.from({ length: tokens }, (_, i) => `word${i}`).join(" ");
let chromium;

before(async () => {
  chromium = await launch();
});

after(async () => {
  await chromium?.close();
});

/** The answer's text as a reader sees it, white space folded. */
async function answerText(locator) {
  return (await locator.textContent()).replace(/\s+/g, " ").trim();
}

async function ask(page, message) {
  await page.getByLabel("Message").fill(message);
  await page.getByLabel("Message").press("Enter");
}

test("a bad key is refused with the server's reason; the tenant's key opens the app", async () => {
  const { context, page } = await newPage(chromium.browser);
  await page.goto(`${baseUrl}/`);
  await page.getByLabel("API key or JWT").fill("ck_0000000000000000_" + "0".repeat(64));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("alert").filter({ hasText: "UNAUTHENTICATED" }).waitFor();
  await shot(page, "signin");
  await page.getByLabel("API key or JWT").fill(apiKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "+ New chat" }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem("colloquy.credential")?.includes("ck_")), true);
  assert.equal(await page.evaluate(() => localStorage.getItem("colloquy.credential")), null, "never in local storage");
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("a new chat streams its answer token by token, then shows status, latency and usage", async () => {
  const { context, page } = await newPage(chromium.browser);
  await signIn(page);
  const question = `What is the refund policy, ${Date.now().toString(36)}?`;
  await ask(page, question);
  const answer = page.locator(".turn .run .markdown").last();
  await answer.waitFor();
  const seen = new Set();
  while ((await page.locator(".turn").last().getAttribute("data-status")) !== "completed") {
    seen.add(await answerText(answer));
    await page.waitForTimeout(50);
  }
  const partials = [...seen].filter((text) => text !== fullAnswer);
  assert.ok(partials.length >= 3, `the answer grew in steps, saw ${partials.length}: ${partials.slice(0, 3)}`);
  for (const partial of partials) assert.ok(fullAnswer.startsWith(partial.replace(/▍$/, "")), partial);
  assert.equal(await answerText(answer), fullAnswer);
  const status = page.locator(".turn .turn-status").last();
  assert.match(await status.textContent(), /completed/);
  assert.match(await status.textContent(), /\d+(\.\d)? m?s/);
  assert.match(await status.textContent(), new RegExp(`\\d+ tokens`));
  await page.locator(".session", { hasText: question }).waitFor();
  assert.match(page.url(), /#\/chat\/[0-9a-f-]{36}$/);
  await shot(page, "chat");

  // A reload brings the open session back: the address names it, the server holds its messages.
  const read = page.waitForResponse((r) => r.url() === `${baseUrl}/v1/sessions/${page.url().split("/").at(-1)}`);
  await page.reload();
  assert.equal((await read).status(), 200);
  await page.locator(".turn[data-status=completed] .run .markdown").waitFor();
  assert.equal(await page.locator(".turn").count(), 1);
  assert.equal(await page.locator(".turn .message.user").textContent(), question);
  assert.equal(await answerText(page.locator(".turn .run .markdown")), fullAnswer);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("stop ends the answer mid-way and says so", async () => {
  const { context, page } = await newPage(chromium.browser);
  await signIn(page);
  await ask(page, "Tell me everything");
  await page.waitForFunction(() => document.querySelector(".turn .run .markdown")?.textContent.includes("word3"));
  await page.getByRole("button", { name: "Stop" }).click();
  const turn = page.locator(".turn").last();
  await page.locator(".turn[data-status=cancelled]").waitFor();
  assert.match(await turn.locator(".turn-status").textContent(), /stopped/);
  const text = await answerText(turn.locator(".run .markdown"));
  assert.ok(text.length < fullAnswer.length && fullAnswer.startsWith(text), `stopped early: ${text}`);
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("after a network drop the answer resumes after the last event, with nothing twice", async () => {
  // The page is served through a proxy whose connections the test cuts, then the browser goes
  // offline for a moment so the first reconnections fail too.
  const proxy = await startProxy(baseUrl);
  const { context, page } = await newPage(chromium.browser);
  try {
    await signIn(page, apiKey, proxy.url);
    await ask(page, "Keep talking while the network drops");
    await page.waitForFunction(() => document.querySelector(".turn .run .markdown")?.textContent.includes("word5"));
    await context.setOffline(true);
    assert.ok(proxy.dropAll() >= 1, "the stream's connection was cut");
    const banner = page.locator(".reconnect");
    await page.locator(".reconnect.reconnecting").waitFor();
    assert.match(await banner.textContent(), /reconnecting \(attempt \d+\), resuming after event \d+/);
    await shot(page, "reconnecting");
    await page.waitForTimeout(1000);
    await context.setOffline(false);
    await page.locator(".turn[data-status=completed]").waitFor({ timeout: 30_000 });
    assert.match(await banner.textContent(), /Reconnected — resumed after event \d+/);
    assert.equal(await answerText(page.locator(".turn .run .markdown").last()), fullAnswer, "no token missing or twice");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await proxy.close();
  }
});

test("fan-out: several models stream side by side in columns, each with its own status, usage or failure", async () => {
  const { context, page } = await newPage(chromium.browser);
  await signIn(page);
  await page.getByLabel("Models").fill("mock, mock-b, broken");
  await ask(page, "Compare your answers");
  const columns = page.locator(".turn .columns .run");
  await page.waitForFunction(() => {
    const runs = [...document.querySelectorAll(".turn .columns .run")];
    return runs.filter((run) => run.classList.contains("streaming") && run.querySelector(".markdown")).length === 2;
  });
  await shot(page, "fan-out");
  assert.equal(await columns.count(), 3);
  await page.locator(".turn[data-status=completed]").waitFor();
  for (const model of ["mock", "mock-b"]) {
    const column = page.locator(`.run[data-model="${model}"]`);
    assert.match(await column.locator(".run-head").textContent(), new RegExp(`${model}.*completed`));
    assert.equal(await answerText(column.locator(".markdown")), fullAnswer);
    assert.match(await column.locator(".run-foot").textContent(), /\d+ tokens/);
  }
  const broken = page.locator('.run[data-model="broken"]');
  assert.match(await broken.locator(".run-head").textContent(), /failed/);
  assert.match(await broken.locator(".error").textContent(), /[A-Z_]+: /);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("an upload shows its progress; the document is cited and its footnote opens the passage", async () => {
  const { context, page } = await newPage(chromium.browser);
  await signIn(page);
  await page.getByRole("link", { name: "Knowledge" }).click();
  // Slow the upload to 8 KiB/s, so its progress can be seen between 0 and 100%.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions",
    { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * 1024 });
  const place = `Farol${Date.now().toString(36)}`;
  const logbook = (n) => `## Logbook ${n}\n\n` + Array.from({ length: 40 }, (_, i) =>
    `On day ${i} of season ${n} the keeper noted the wind, the ships that passed and the oil burnt by the lamp.`).join(" ");
  const handbook = `# Lighthouse keeping\n\nThe lamp of the ${place} lighthouse is lit every evening at sunset by the keeper, `
    + "and its oil is refilled every Tuesday.\n\n" + [1, 2, 3, 4].map(logbook).join("\n\n");
  const name = `${place}.md`;
  await page.getByLabel("Files to upload").setInputFiles({ name, mimeType: "text/markdown", buffer: Buffer.from(handbook) });
  const progress = page.getByLabel(`Upload of ${name}`);
  await page.waitForFunction(() => {
    const bar = document.querySelector(".upload progress");
    return bar && bar.value > 0 && bar.value < bar.max;
  });
  await shot(page, "upload");
  await page.locator(".upload.accepted").waitFor({ timeout: 30_000 });
  assert.equal(await progress.evaluate((bar) => bar.value === bar.max), true);
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const row = page.locator("tr", { hasText: name });
  await row.locator(".badge.ready").waitFor({ timeout: 60_000 });
  assert.match(await row.textContent(), /v1/);
  await shot(page, "knowledge");

  await page.getByRole("link", { name: "Chat" }).click();
  await ask(page, `When is the lamp of the ${place} lighthouse lit?`);
  await page.locator(".turn[data-status=completed]").waitFor();
  const footnote = page.locator(".citations button.footnote", { hasText: name }).first();
  assert.match(await footnote.textContent(), new RegExp(`^\\[\\d\\] ${name} › Lighthouse keeping`));
  await footnote.click();
  const passage = page.locator("dialog.passage");
  await passage.waitFor();
  const text = passage.locator("blockquote.passage-text");
  await text.waitFor();
  assert.match(await text.textContent(), new RegExp(`The lamp of the ${place} lighthouse is lit every evening at sunset`),
    "the dialog shows the passage's own text");
  const details = await passage.textContent();
  assert.ok(details.includes(name), details);
  assert.match(details, /Section\s*Lighthouse keeping/);
  assert.match(details, /Score\s*0\.\d{3}/);
  assert.match(details, /Version\s*v1, ready/);
  await shot(page, "citation");
  await page.keyboard.press("Escape");
  await passage.waitFor({ state: "hidden" });
  assert.match(await page.locator(".turn-status").last().textContent(), /confidence 0\.\d\d/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("sessions are renamed, searched and deleted; replay shows the journal and the state at any event", async () => {
  const { context, page } = await newPage(chromium.browser);
  await signIn(page);
  const original = `A session to rename ${Date.now().toString(36)}`;
  await ask(page, original);
  await page.locator(".turn[data-status=completed]").waitFor();
  const item = page.locator(".session", { hasText: original });
  await item.getByRole("button", { name: /Rename/ }).click();
  const renamed = `Renamed ${Date.now().toString(36)}`;
  await page.getByLabel("New title").fill(renamed);
  await page.getByLabel("New title").press("Enter");
  await page.locator(".chat-head h1", { hasText: renamed }).waitFor();
  // The search asks the server for the titles that contain the text, in any case. The list is a read
  // side that follows the sessions within a moment: wait for it to know the new title.
  const listed = async () => (await (await fetch(`${baseUrl}/v1/sessions?q=${encodeURIComponent(renamed)}`,
    { headers: { Authorization: `Bearer ${apiKey}` } })).json()).sessions.length === 1;
  for (let tries = 0; !(await listed()); tries++) {
    assert.ok(tries < 100, "the rename reached the session list");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const searched = page.waitForResponse((r) => r.url().includes("/v1/sessions?")
    && new URL(r.url()).searchParams.get("q") === renamed.toUpperCase());
  await page.getByLabel("Search sessions by title").fill(renamed.toUpperCase());
  const found = await searched;
  assert.equal(found.status(), 200);
  assert.deepEqual((await found.json()).sessions.map((s) => s.title), [renamed]);
  await page.locator(".session", { hasText: renamed }).waitFor();
  assert.equal(await page.locator(".session").count(), 1);
  await page.getByLabel("Search sessions by title").fill(`no title has this ${Date.now()}`);
  await page.locator(".sessions .empty", { hasText: "No session title matches" }).waitFor();
  await page.getByLabel("Search sessions by title").fill("");
  await page.waitForFunction(() => document.querySelectorAll(".session").length > 1);
  await page.getByLabel("Search sessions by title").fill(renamed);
  await page.locator(".session", { hasText: renamed }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll(".session").length === 1);

  await page.getByRole("link", { name: "Replay" }).click();
  await page.locator(".timeline li", { hasText: "SessionOpened" }).waitFor();
  const types = await page.locator(".timeline .type").allTextContents();
  assert.deepEqual(types.slice(0, 2), ["SessionOpened", "SessionRenamed"]);
  assert.ok(types.includes("TurnCompleted"));
  await page.locator(".timeline button", { hasText: "SessionOpened" }).click();
  await page.locator(".state h2", { hasText: "State after event #1" }).waitFor();
  assert.match(await page.locator(".state").textContent(), /0 messages/);
  await shot(page, "replay");
  if (process.env.ADMIN_TOKEN) {
    // The operator's token reads the journal of any tenant's session.
    const read = page.waitForResponse((r) => r.url().includes("/journal") && r.request().headers().authorization === `Bearer ${process.env.ADMIN_TOKEN}`);
    await page.getByLabel(/Admin token/).fill(process.env.ADMIN_TOKEN);
    await page.getByLabel(/Admin token/).press("Enter");
    assert.equal((await read).status(), 200);
    await page.locator(".timeline li", { hasText: "TurnCompleted" }).waitFor();
  }

  await page.getByRole("link", { name: "Chat" }).click();
  page.once("dialog", (dialog) => dialog.accept());
  await page.locator(".session", { hasText: renamed }).getByRole("button", { name: /Delete/ }).click();
  await page.locator(".session", { hasText: renamed }).waitFor({ state: "detached" });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("on a phone the session list is a drawer; the dark theme applies", async () => {
  const { context, page } = await newPage(chromium.browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await signIn(page);
  assert.equal(await page.locator(".sidebar").isVisible() && await page.locator(".sidebar").evaluate(
    (el) => el.getBoundingClientRect().right > 0), false, "the drawer starts closed");
  await ask(page, "Hello from a phone");
  await page.locator(".turn[data-status=completed]").waitFor();
  await shot(page, "phone");
  await page.getByRole("button", { name: "Sessions" }).click();
  await page.waitForFunction(() => document.querySelector(".sidebar").getBoundingClientRect().left >= 0);
  await shot(page, "phone-drawer");
  await context.close();

  const dark = await newPage(chromium.browser, { colorScheme: "dark" });
  await signIn(dark.page);
  const background = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(background, "rgb(21, 23, 28)");
  await ask(dark.page, "Dark mode, please");
  await dark.page.locator(".turn[data-status=completed]").waitFor();
  await shot(dark.page, "dark");
  await dark.context.close();
});
