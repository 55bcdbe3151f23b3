// Model output that tries to run script: the mock answers with MOCK_TEXT (markup with a <script>, an
// <img onerror> and a javascript: link, set by WebAppBrowserIntegrationTest). None of it may run or
// reach the page as markup, live or when the session is opened again.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage, signIn } from "./browser.mjs";

let chromium;
before(async () => {
  chromium = await launch();
});
after(async () => {
  await chromium?.close();
});

async function assertInert(page) {
  const markdown = page.locator(".turn .run .markdown").last();
  assert.equal(await page.evaluate(() => window.__xss), undefined, "no payload ran");
  assert.equal(await page.title(), "Colloquy");
  assert.equal(await markdown.locator("script, img, iframe, [onerror], [onload], [onclick]").count(), 0);
  assert.equal(await markdown.locator('a[href^="javascript:"]').count(), 0);
  const text = await markdown.textContent();
  assert.match(text, /<img src=x onerror=/, "the model's markup is shown as text");
  assert.match(text, /<script>/);
  assert.equal(await markdown.locator("strong").textContent(), "bold", "Markdown itself is rendered");
}

test("model output with <script>, <img onerror> and a javascript: link does not run", async () => {
  const { context, page } = await newPage(chromium.browser);
  await signIn(page);
  await page.getByLabel("Message").fill("Say something dangerous");
  await page.getByLabel("Message").press("Enter");
  await page.locator(".turn[data-status=completed]").waitFor();
  await assertInert(page);
  const link = page.locator(".turn .run .markdown a").last();
  if (await link.count() > 0) {
    assert.doesNotMatch(await link.getAttribute("href") ?? "", /^javascript:/i);
  }

  await page.reload();
  await page.locator(".turn[data-status=completed]").waitFor();
  await assertInert(page);
  assert.deepEqual(page.errors, []);
  await context.close();
});
