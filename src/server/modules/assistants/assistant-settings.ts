/**
 * How a call goes, as the API names it: the part of an assistant's row that both its view
 * (GET /api/assistants/:id) and a published version's content (src/shared/versions.ts) carry as is.
 */
import type { AssistantRow } from "./assistants.repo.ts";

export function callSettingsOf(row: AssistantRow) {
  return {
    first_message: row.firstMessage,
    instructions: row.instructions,
    voice: row.voice,
    model: row.model,
    transfer_destinations: row.transferDestinations,
    allow_end_call: row.allowEndCall,
    keypad_input: row.keypadInput,
    timezone: row.timezone,
    voicemail: row.voicemail ?? null,
    allow_do_not_call: row.allowDoNotCall,
  };
}
