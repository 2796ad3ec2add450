/**
 * The call.* webhook events, emitted from around a call rather than inside the engine: the
 * record's insert (call.started), a phone transfer (call.transferred) and the session's end
 * (call.ended, read back from the finished record). Each emit is store-and-forget: it runs after
 * the step it reports and the call never waits for it.
 */
import type { TransferDestination } from "../../../shared/assistants.ts";
import { callRecordLogsSchema, providerCostSchema } from "../../../shared/call-records.ts";
import type { WebhookEmittedType } from "../../../shared/webhooks.ts";
import type { Db } from "../../db/client.ts";
import type { CallTransfer } from "../../voice/builtins.ts";
import type { CallStore, PhoneCallParty } from "../../voice/seams.ts";
import { findCall } from "./calls-history.repo.ts";

export type EmitEvent = (organizationId: string, type: WebhookEmittedType, data: unknown) => Promise<void>;

export interface CallEventContext {
  organizationId: string;
  assistant: { id: string; name: string };
  isTest: boolean;
  phone?: PhoneCallParty;
}

const typeOf = (isTest: boolean | null) => (isTest === false ? "phone" : "test");

/** The parties of a call, as every call.* event names them. */
function parties(call: CallEventContext, callId: string) {
  return {
    call_id: callId,
    assistant_id: call.assistant.id,
    assistant_name: call.assistant.name,
    type: typeOf(call.isTest),
    direction: call.phone?.recordId ? "outbound" : "inbound",
    campaign_id: call.phone?.campaignId ?? null,
    variables: call.phone?.variables ?? null,
    caller_number: call.phone?.callerNumber ?? null,
    called_number: call.phone?.calledNumber ?? null,
    call_sid: call.phone?.providerCallSid ?? null,
  };
}

export function createCallEvents(deps: { db: Db; publicUrl: string; emit: EmitEvent }) {
  const { db, publicUrl, emit } = deps;
  const fire = (organizationId: string, type: WebhookEmittedType, data: () => Promise<unknown> | unknown) =>
    void Promise.resolve()
      .then(data)
      .then((d) => (d === null ? undefined : emit(organizationId, type, d)))
      .catch(() => undefined);

  /** call.ended: the end-of-call report, read from the finished record. */
  function ended(call: CallEventContext, callId: string) {
    fire(call.organizationId, "call.ended", async () => {
      const row = await findCall(db, call.organizationId, callId);
      if (!row) return null;
      const logs = callRecordLogsSchema.safeParse(row.logs);
      const cost = providerCostSchema.safeParse(row.providerCost);
      return {
        ...parties(call, callId),
        assistant_name: row.assistantName ?? call.assistant.name,
        start_time: row.startTime.toISOString(),
        end_time: row.endTime?.toISOString() ?? null,
        duration_ms: row.endTime ? Math.max(0, row.endTime.getTime() - row.startTime.getTime()) : null,
        ended_reason: row.endedReason,
        status: row.status,
        transcript: logs.success ? (logs.data.transcript ?? []) : [],
        tool_calls: logs.success ? (logs.data.toolsUsed ?? []) : [],
        cost: row.cost,
        cost_breakdown: cost.success ? cost.data : null,
        // The API address (session or API key), not a signed link that would expire before the retries end.
        recording_url: row.hasRecording ? `${publicUrl}/api/calls/${callId}/recording` : null,
      };
    });
  }

  return {
    /** call.ended of an outbound call Twilio ended before it reached the assistant (no answer, busy, failed, cancelled, a machine hung up on). */
    endedUnanswered(record: { id: string; organizationId: string; assistantId: string | null; callerNumber: string | null; calledNumber: string | null; phoneNumberId: string | null; providerCallSid: string | null; campaignId: string | null; variables: Record<string, string> | null }) {
      ended(
        {
          organizationId: record.organizationId,
          assistant: { id: record.assistantId ?? "", name: "" },
          isTest: false,
          phone: {
            recordId: record.id,
            callerNumber: record.callerNumber ?? "",
            calledNumber: record.calledNumber ?? "",
            phoneNumberId: record.phoneNumberId ?? "",
            providerCallSid: record.providerCallSid ?? "",
            ...(record.campaignId ? { campaignId: record.campaignId } : {}),
            ...(record.variables ? { variables: record.variables } : {}),
          },
        },
        record.id,
      );
    },

    /**
     * Wraps what one call writes through: its store reports call.started once the record exists,
     * its transfer (phone) call.transferred once Twilio has taken it; `ended` reports call.ended.
     */
    track(call: CallEventContext, store: CallStore, transfer: CallTransfer | undefined) {
      let recordId: Promise<string | null> = Promise.resolve(null);
      const tracked: CallStore = {
        insert: (start) => {
          const inserted = store.insert(start);
          recordId = inserted.catch(() => null);
          void inserted.then((id) => fire(call.organizationId, "call.started", () => ({ ...parties(call, id), start_time: new Date().toISOString() })), () => undefined);
          return inserted;
        },
        saveProgress: (id, logs) => store.saveProgress(id, logs),
        finish: (id, update) => store.finish(id, update),
        read: (id) => store.read(id),
      };
      const trackedTransfer: CallTransfer | undefined = transfer && {
        get holdsCaller() {
          return transfer.holdsCaller;
        },
        transfer: async (destination: TransferDestination, summary: string) => {
          const done = await transfer.transfer(destination, summary);
          fire(call.organizationId, "call.transferred", async () => {
            const id = await recordId;
            return id ? { ...parties(call, id), destination: { label: destination.label, phone_number: destination.phone_number }, transferred_at: new Date().toISOString() } : null;
          });
          return done;
        },
      };
      return {
        store: tracked,
        transfer: trackedTransfer,
        ended: (callId: string | null) => {
          if (callId) ended(call, callId);
        },
      };
    },
  };
}

export type CallEvents = ReturnType<typeof createCallEvents>;
