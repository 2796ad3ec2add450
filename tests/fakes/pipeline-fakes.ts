/**
 * The three stand-ins a pipeline engine is made of, started together: Deepgram's live
 * transcription, Chat Completions and ElevenLabs, each on its own local socket. Their keys are
 * `dg-{tag}`, `gsk-{tag}` and `xi-{tag}`, so a test can name them in the providers it saves.
 */
import { closeInOrder } from "../close.ts";
import { startFakeChat, type FakeChat } from "./fake-chat-completions.ts";
import { startFakeDeepgram, type FakeDeepgram } from "./fake-deepgram.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "./fake-elevenlabs.ts";

export interface PipelineFakes {
  deepgram: FakeDeepgram;
  chat: FakeChat;
  voice: FakeElevenLabs;
  close(): Promise<void>;
}

export async function startPipelineFakes(tag: string): Promise<PipelineFakes> {
  const deepgram = await startFakeDeepgram({ apiKey: `dg-${tag}` });
  const chat = await startFakeChat({ apiKey: `gsk-${tag}` });
  const voice = await startFakeElevenLabs({ apiKey: `xi-${tag}` });
  return { deepgram, chat, voice, close: () => closeInOrder(voice, chat, deepgram) };
}
