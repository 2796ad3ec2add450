import { z } from "zod";
import { SETTINGS_CARDS, settingsPath } from "./settings.js";

/** The first hour, in order: what a new organisation does before its first real call. */
export const GETTING_STARTED_STEPS = ["openai_key", "assistant", "test_call", "twilio", "phone_number", "real_call"] as const;
export type GettingStartedStep = (typeof GETTING_STARTED_STEPS)[number];

/** GET /api/getting-started: each step ticked from the organisation's own data. */
export const gettingStartedSchema = z.object({
  steps: z.array(z.object({ id: z.enum(GETTING_STARTED_STEPS), done: z.boolean() })),
  complete: z.boolean(),
});
export type GettingStarted = z.infer<typeof gettingStartedSchema>;

/** What each step says and where it is done (an app path; Settings steps land on their card). */
export const GETTING_STARTED_TEXTS = {
  title: "Getting started",
  description: "Six steps from a new account to your first real phone call. Each is ticked as soon as it is done.",
  progress: (done: number, total: number) => `${done} of ${total} done`,
  steps: {
    openai_key: { title: "Add your OpenAI API key", detail: "Assistants speak through the OpenAI Realtime API.", to: settingsPath(SETTINGS_CARDS.openaiKey), action: "Open Settings" },
    assistant: { title: "Create an assistant", detail: "Give it instructions, a voice and a first message.", to: "/assistants", action: "Create Assistant" },
    test_call: { title: "Talk to it in a test call", detail: "Open an assistant and start a Test Call from the browser.", to: "/assistants", action: "Open Assistants" },
    twilio: { title: "Connect your Twilio account", detail: "Your Account SID and Auth Token, checked with Twilio.", to: settingsPath(SETTINGS_CARDS.twilio), action: "Open Settings" },
    phone_number: { title: "Get a phone number", detail: "Buy a number and link it to an assistant.", to: "/phone-numbers", action: "Open Phone Numbers" },
    real_call: { title: "Take your first real call", detail: "Call your number; the call appears on the Calls page.", to: "/calls", action: "Open Calls" },
  } satisfies Record<GettingStartedStep, { title: string; detail: string; to: string; action: string }>,
} as const;

/** The step to do next: the first one not done, in order; null once complete. */
export function nextStep(progress: GettingStarted): GettingStartedStep | null {
  return progress.steps.find((s) => !s.done)?.id ?? null;
}
