/**
 * Call-engine harness over real sockets: a local `ws` server stands in for WS /api/calls/live
 * and runs one CallSession per connection (BrowserTransport + OpenAIRealtimeProvider pointed
 * at the fake provider + an in-memory CallStore and recording sink + a recording ToolRunner).
 */
import { createServer } from "node:http";
import { afterEach, beforeEach } from "vitest";
import { WebSocketServer } from "ws";
import { CallSession, type CallAssistant, type CallSessionOptions } from "../../src/server/voice/call-session.ts";
import { OpenAIRealtimeProvider } from "../../src/server/voice/providers/openai-realtime.ts";
import type { ToolRunner } from "../../src/server/voice/seams.ts";
import { BrowserTransport } from "../../src/server/voice/transports/browser.ts";
import { startFakeRealtime, type FakeRealtime } from "./fake-realtime.ts";
import { TestBrowser } from "./realtime-browser-client.ts";
import { MemoryCallStore, memoryRecordings } from "./realtime-call-store.ts";
import { RecordingToolRunner } from "./realtime-tool-runner.ts";

export const defaultAssistant: CallAssistant = {
  id: "asst_1",
  name: "Ava",
  instructions: "You are Ava, a helpful assistant.",
  firstMessage: "Hello, this is Ava. How can I help?",
  model: "gpt-realtime-2.1",
  voice: "marin",
  tools: [],
};

export interface HarnessOptions {
  assistant?: Partial<CallAssistant>;
  toolRunner?: ToolRunner;
  apiKey?: string;
  session?: Partial<Pick<CallSessionOptions, "now" | "connectTimeoutMs" | "toolTimeoutMs" | "isTest" | "finalWriteRetryDelaysMs" | "renewBeforeExpiryMs">>;
  /** Give the session a way to open further provider sessions (outliving one), as the app does. */
  renew?: boolean;
  browserHeartbeatMs?: number;
}

export class CallHarness {
  readonly store = new MemoryCallStore();
  readonly recordings = memoryRecordings();
  readonly sessions: CallSession[] = [];
  readonly toolRunner: ToolRunner;
  private readonly server = createServer();
  private readonly wss = new WebSocketServer({ server: this.server });
  private readonly sessionListeners = new Set<() => void>();

  constructor(fake: FakeRealtime, options: HarnessOptions = {}) {
    this.toolRunner = options.toolRunner ?? new RecordingToolRunner();
    this.wss.on("connection", (ws) => {
      const assistant = { ...defaultAssistant, ...options.assistant };
      const newProvider = () =>
        new OpenAIRealtimeProvider({
          baseUrl: fake.baseUrl,
          apiKey: options.apiKey ?? fake.apiKey,
          model: assistant.model,
          pingIntervalMs: 0,
        });
      const session = new CallSession({
        transport: new BrowserTransport(ws, { heartbeatMs: options.browserHeartbeatMs ?? 0 }),
        provider: newProvider(),
        ...(options.renew ? { newProvider } : {}),
        toolRunner: this.toolRunner,
        store: this.store,
        openRecording: this.recordings.open,
        assistant,
        organizationId: "user_1",
        isTest: options.session?.isTest ?? true,
        ...options.session,
      });
      this.sessions.push(session);
      session.start();
      for (const listener of this.sessionListeners) listener();
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get url(): string {
    const address = this.server.address();
    if (!address || typeof address === "string") throw new Error("harness is not listening");
    return `ws://127.0.0.1:${address.port}/api/calls/live`;
  }

  /** Open a browser socket and wait for its CallSession. */
  async call(): Promise<{ browser: TestBrowser; session: CallSession }> {
    const index = this.sessions.length;
    const browser = await TestBrowser.connect(this.url);
    await new Promise<void>((resolve) => {
      const check = () => {
        if (this.sessions[index]) {
          this.sessionListeners.delete(check);
          resolve();
        }
      };
      this.sessionListeners.add(check);
      check();
    });
    return { browser, session: this.sessions[index]! };
  }

  async close(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.close("Server shutting down")));
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function startHarness(fake: FakeRealtime, options: HarnessOptions = {}): Promise<CallHarness> {
  const harness = new CallHarness(fake, options);
  await harness.listen();
  return harness;
}

/**
 * The fake provider and call harness of a voice test file, fresh for each test: the fake OpenAI
 * starts before it; the harness the test started (if any) and the fake close after it.
 * `const voice = useFakeCall()`, then `voice.fake.script = …` and `await voice.start(options)`.
 */
export function useFakeCall() {
  let fake: FakeRealtime | undefined;
  let harness: CallHarness | undefined;
  beforeEach(async () => {
    fake = await startFakeRealtime({ apiKey: "sk-test" });
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    await fake?.close();
  });
  return {
    get fake(): FakeRealtime {
      if (!fake) throw new Error("useFakeCall: the fake provider starts before each test");
      return fake;
    },
    /** The harness this test started. */
    get harness(): CallHarness {
      if (!harness) throw new Error("useFakeCall: start() the harness first");
      return harness;
    },
    async start(options: HarnessOptions = {}): Promise<CallHarness> {
      harness = await startHarness(this.fake, options);
      return harness;
    },
  };
}
