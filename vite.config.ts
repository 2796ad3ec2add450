import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { "@": src("./src/web"), "@shared": src("./src/shared") } },
  build: { outDir: "dist/web", emptyOutDir: true, sourcemap: false },
  // `npm run dev` (scripts/dev.ts) runs the API on API_PORT behind this dev server.
  server: {
    proxy: {
      "/api": { target: `http://127.0.0.1:${process.env.API_PORT ?? 3001}`, ws: true },
      "/telephony": { target: `http://127.0.0.1:${process.env.API_PORT ?? 3001}`, ws: true },
    },
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "server",
          environment: "node",
          include: ["src/server/**/*.test.ts", "src/shared/**/*.test.ts", "tests/**/*.test.ts"],
          globalSetup: ["tests/global-setup.ts"],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
