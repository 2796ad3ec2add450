/**
 * Child process of `bench-calls-provider.ts`: the stand-in embeddings API (tests/fakes/fake-embeddings.ts)
 * for `--ingest`, on its own event loop. Computing the passages' vectors is OpenAI's work, not the
 * server's: in the provider's process it delayed that process's stamping of the callers' frames,
 * and the bench counted the delay against the server.
 */
import { FakeEmbeddings } from "../tests/fakes/fake-embeddings.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";
import type { EmbeddingsMessage } from "./bench-calls-shared.ts";

const { apiKey } = await nextMessage<EmbeddingsMessage, "start">(process, "start");
const fake = await FakeEmbeddings.start({ apiKey });
send(process, { type: "listening", origin: new URL(fake.baseUrl).origin } satisfies EmbeddingsMessage);
process.on("disconnect", () => void fake.close().catch(() => undefined).then(() => process.exit(0)));
