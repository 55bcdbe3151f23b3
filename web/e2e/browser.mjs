// One Chromium for a test file: the machine's own (/usr/bin/chromium), never a downloaded one. Playwright
// starts it with a fresh, temporary profile of its own each time.
import { join } from "node:path";
import { chromium } from "playwright-core";

export const baseUrl = process.env.COLLOQUY_BASE_URL ?? "http://127.0.0.1:8080";
export const apiKey = process.env.COLLOQUY_API_KEY ?? "";
export const screenshots = process.env.SCREENSHOT_DIR;

export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  return { browser, close: () => browser.close() };
}

/** A page whose script errors and console errors are kept, so a test can say none happened. */
export async function newPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  return { context, page };
}

/** Signs in with the tenant key through the sign-in form. */
export async function signIn(page, key = apiKey, at = baseUrl) {
  await page.goto(`${at}/`);
  await page.getByLabel("API key or JWT").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "+ New chat" }).waitFor();
}

export async function shot(page, name) {
  if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`) });
}
