import { Pencil, PhoneCall, Rocket } from "lucide-react";
import { OUTBOUND_FIELD_TEXTS, VOICEMAIL_TEXTS, type Assistant } from "@shared/assistants";
import { DetailField, DetailsBody } from "@/components/panel-sheet";
import { Button } from "@/components/ui/button";
import { DEFAULT_ANALYSIS_SETTINGS, SUCCESS_SCALE_LABELS } from "@shared/analysis";
import { AnalysePastCalls } from "./analyse-past-calls";
import { VERSION_MESSAGES } from "@shared/versions";
import { longDate } from "./assistant-dates";
import { DraftBadge } from "./draft-badge";
import { useDraftState } from "./use-versions";

interface AssistantDetailsProps {
  assistant: Assistant;
  onEdit: () => void;
  onTestCall: () => void;
  /** Publish beside Edit: the History tab, where the draft is published with its note (and tests). */
  onPublish: () => void;
}

/** The read-only side panel of spec §2 (the name is the panel's title): every field, with its fallback when empty. */
export function AssistantDetails({ assistant, onEdit, onTestCall, onPublish }: AssistantDetailsProps) {
  // A record from an older server has none: it is analysed with the defaults.
  const analysis = assistant.analysis ?? DEFAULT_ANALYSIS_SETTINGS;
  const draft = useDraftState(assistant.id);
  return (
    <DetailsBody
      top={<DraftBadge assistantId={assistant.id} className="justify-self-start" />}
      actions={
        <>
          <Button variant="outline" onClick={onEdit}>
            <Pencil />
            Edit
          </Button>
          {draft?.draft_changed && (
            <Button variant="outline" onClick={onPublish}>
              <Rocket />
              {VERSION_MESSAGES.publish}
            </Button>
          )}
          <Button onClick={onTestCall}>
            <PhoneCall />
            Test Call
          </Button>
        </>
      }
      after={
        // A list of its own: a <dl> may hold only <div>-wrapped dt/dd groups, not a nested grid.
        <dl className="grid grid-cols-2 gap-6">
          <DetailField label="Voice">
            <span className="capitalize">{assistant.voice}</span>
          </DetailField>
          <DetailField label="Model">{assistant.model}</DetailField>
          <DetailField label="Created">{longDate(assistant.created_at)}</DetailField>
          <DetailField label="Last Updated">{longDate(assistant.updated_at)}</DetailField>
        </dl>
      }
    >
        <DetailField label="Description" fallback="No description provided">
          {assistant.description}
        </DetailField>
        <DetailField label="First Message" fallback="No first message set">
          {assistant.first_message}
        </DetailField>
        <DetailField label="Instructions" fallback="No instructions provided">
          {assistant.instructions && (
            <div className="max-h-80 overflow-y-auto rounded-md border bg-muted/40 px-3 py-2 text-[13px] leading-relaxed whitespace-pre-wrap">
              {assistant.instructions}
            </div>
          )}
        </DetailField>
        <DetailField label="Tools" fallback="No tools connected">
          {assistant.tools.length > 0 && (
            <ul className="grid gap-1.5">
              {assistant.tools.map((tool) => (
                <li key={tool.id} className="flex items-center gap-2">
                  <span className="size-1.5 shrink-0 rounded-full bg-primary" aria-hidden="true" />
                  {tool.name} ({tool.type})
                </li>
              ))}
            </ul>
          )}
        </DetailField>
        <DetailField label="Transfer destinations" fallback="No transfer destinations">
          {assistant.transfer_destinations.length > 0 && (
            <ul className="grid gap-1.5">
              {assistant.transfer_destinations.map((d) => (
                <li key={d.label}>
                  <span className="font-medium">{d.label}</span> ({d.phone_number}): {d.when_to_use}
                </li>
              ))}
            </ul>
          )}
        </DetailField>
        <DetailField label="Analysis">
          {[
            analysis.summary.enabled ? "Summary: On" : "Summary: Off",
            `Data to extract: ${analysis.fields.map((f) => f.name).join(", ") || "none"}`,
            `Success: ${SUCCESS_SCALE_LABELS[analysis.success.scale]}${analysis.success.categories ? ` (${analysis.success.categories.join(", ")})` : ""}`,
            `Model: ${analysis.model}`,
          ].join("\n")}
          <div className="mt-3">
            <AnalysePastCalls assistantId={assistant.id} />
          </div>
        </DetailField>
        <DetailField label="Call controls">
          {`Assistant can end the call: ${assistant.allow_end_call ? "On" : "Off"}\nKeypad input: ${assistant.keypad_input ? "On" : "Off"}`}
        </DetailField>
        <DetailField label={OUTBOUND_FIELD_TEXTS.heading}>
          {OUTBOUND_FIELD_TEXTS.summary(
            assistant.timezone,
            assistant.voicemail === null ? VOICEMAIL_TEXTS.off : assistant.voicemail.action === "hang_up" ? VOICEMAIL_TEXTS.hangUp : `${VOICEMAIL_TEXTS.leaveMessage}: "${assistant.voicemail.message ?? ""}"`,
            assistant.allow_do_not_call,
          )}
          {assistant.variables.length > 0 && `\n${OUTBOUND_FIELD_TEXTS.placeholdersFound} ${assistant.variables.map((n) => `{{${n}}}`).join(", ")}`}
        </DetailField>
    </DetailsBody>
  );
}
