// Node's process.env, which api.ts reads as Next.js code does (the project avoids @types/node).
declare const process: { env: Record<string, string | undefined>; argv: string[]; exitCode?: number };
