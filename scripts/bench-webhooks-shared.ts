/**
 * The IPC messages of `npm run bench:webhooks` between the server process and its two children:
 * the phone callers (bench-webhooks-callers.ts) and the webhook receiver
 * (bench-webhooks-receiver.ts).
 */
import type { CallerTarget } from "./bench-calls-shared.ts";
import type { Summary } from "./bench-voice-shared.ts";

export type WebhookCallersRequest =
  | { type: "start"; target: CallerTarget; steady: number }
  /** Place `events` short calls, `rate` a second, each talking `callSeconds` then hanging up. */
  | { type: "churn"; events: number; rate: number; callSeconds: number }
  | { type: "stop" };

export type WebhookCallersMessage =
  | { type: "steady"; connected: number; firstFailure: string | null }
  | { type: "churned"; ended: number; failed: number; refused: number; firstFailure: string | null }
  | { type: "stopped" };

export type ReceiverRequest = { type: "secret"; secret: string } | { type: "count" } | { type: "report" };

export type ReceiverMessage =
  | { type: "listening"; url: string }
  | { type: "count"; callEnded: number }
  | {
      type: "report";
      requests: number;
      /** call.ended requests answered 200 (verified), one per webhook-id. */
      received: number;
      duplicates: number;
      unverified: number;
      /** From the call's end (the event's `end_time`) to receipt, ms. */
      endToReceipt: Summary;
    };
