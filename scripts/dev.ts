/**
 * `npm run dev`: the Vite dev server (hot reload) on PORT, in front of the API server, which
 * restarts on change (tsx watch) on PORT+1. Vite proxies /api, including the call WebSockets.
 */
import { spawn } from "node:child_process";

const port = Number(process.env.PORT ?? 3000);
const apiPort = port + 1;
const children = [
  spawn("npx", ["tsx", "watch", "--clear-screen=false", "src/server/main.ts"], {
    stdio: "inherit",
    env: { ...process.env, PORT: String(apiPort), PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${port}` },
  }),
  spawn("npx", ["vite", "--port", String(port), "--strictPort"], {
    stdio: "inherit",
    env: { ...process.env, API_PORT: String(apiPort) },
  }),
];
const stop = () => children.forEach((c) => c.kill("SIGTERM"));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
children.forEach((c) => c.on("exit", (code) => { stop(); process.exitCode = code ?? 0; }));
