import { fileURLToPath } from "node:url";

/**
 * Shared by both builds. The output is committed into the http module's resources, so that
 * `./colloquy serve` needs only a JDK; WEB_OUT_DIR builds elsewhere (the test that checks the committed
 * bundle is current builds into a temporary folder and compares).
 */
export const outDir = process.env.WEB_OUT_DIR
  ?? fileURLToPath(new URL("../http/src/main/resources/dev/colloquy/http/web/", import.meta.url));

/** The client library is built from its source with the app: one bundle, no published package needed. */
export const alias = {
  "@colloquy/client": fileURLToPath(new URL("../clients/typescript/src/index.ts", import.meta.url)),
  "eventsource-parser/stream": fileURLToPath(new URL("./node_modules/eventsource-parser/dist/stream.js", import.meta.url)),
};

export const jsx = { jsx: { runtime: "automatic", importSource: "preact" } } as const;
