import { defineConfig } from "vite";
import { alias, jsx, outDir } from "./build.ts";

/** The widget: one classic script, `widget.js`, that a page of any origin loads with one tag. */
export default defineConfig({
  resolve: { alias },
  oxc: jsx,
  publicDir: false,
  build: {
    outDir,
    emptyOutDir: false,
    target: "es2022",
    lib: {
      entry: "widget/widget.tsx",
      formats: ["iife"],
      name: "ColloquyWidget",
      fileName: () => "widget.js",
    },
  },
});
