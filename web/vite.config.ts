import { defineConfig } from "vite";
import { alias, jsx, outDir } from "./build.ts";

export default defineConfig({
  base: "/",
  resolve: { alias },
  oxc: jsx,
  build: {
    outDir,
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
  server: {
    proxy: { "/v1": "http://127.0.0.1:8080", "/web/dev-key": "http://127.0.0.1:8080" },
  },
});
