/**
 * The words of the OpenAPI document that no schema can give: each tag's description and the
 * WebSockets, which OpenAPI cannot model, described in prose (their messages are the zod schemas
 * in src/shared/calls.ts and src/shared/live.ts).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  "API keys": "Keys that act for the member who made them, at their current role.",
  Account: "The signed-in person's own account: name, password, deletion, sign-in options.",
  Assistants: "Voice assistants: their draft, published versions, tools, knowledge, test scenarios and analysis.",
  "Audit log": "Who changed what in the organisation, as a list or a CSV file.",
  Calls: "Call records: transcripts, recordings, costs, analysis, replays; outbound calls and the browser test call.",
  Campaigns: "Outbound calling campaigns: contacts, schedule, retries and their progress.",
  Credentials: "The organisation's provider keys (OpenAI, Twilio…), stored encrypted and never shown again.",
  "Do-not-call list": "Numbers no outbound call or campaign may dial.",
  "Getting started": "The checklist of first steps.",
  "Knowledge bases": "Documents an assistant can search during a call.",
  Organizations: "The organisations one belongs to and the current one.",
  "Phone numbers": "Numbers that ring an assistant, bought from a carrier or reached over a SIP trunk.",
  Providers: "Speech-to-text and text-to-speech providers for the pipeline voice engine.",
  "SIP trunks": "SIP trunks and PBXs that carry calls to and from numbers.",
  Settings: "Organisation-wide settings: calls, retention, analysis.",
  Team: "Members, roles and invitations.",
  Telephony: "Whether the carriers can reach this server.",
  "Test runs": "Runs of an assistant's test scenarios and their results.",
  Tools: "HTTP tools an assistant can call during a conversation.",
  Webhooks: "Endpoints that receive signed events, and their deliveries.",
};

export const WEBSOCKETS_DESCRIPTION = `
## WebSockets

Three WebSockets serve the web app. They need a signed-in session and the app's own \`Origin\`, so they are
not for API keys; OpenAPI cannot describe them, so they are described here. Text frames carry one JSON
message each; binary frames carry audio (PCM16 little-endian, mono).

- \`GET /api/calls/live?session_id=…\`: a test call in the browser, with the session id from
  \`POST /api/calls/test-session\` (used once). The browser sends \`clientMessageSchema\` messages
  (\`user_text\`, \`end\`, \`playback\`) and its microphone at 24 kHz; the server sends
  \`serverMessageSchema\` messages (\`status\`, \`started\`, \`transcript\`, \`transcript_delta\`, \`error\`,
  \`audio_start\`, \`clear\`) and the assistant's voice. Both are in \`src/shared/calls.ts\`.
- \`GET /api/live/board\`: the organisation's calls in progress, for members who may supervise: the server
  sends \`boardServerMessageSchema\` messages (\`calls\`, \`call_updated\`, \`call_removed\`).
- \`GET /api/live/calls/{callId}\`: one call in progress, to listen, guide, take over, hand back or end: the
  supervisor sends \`supervisorMessageSchema\` messages, the server \`callServerMessageSchema\` messages
  (the first is \`watching\`, with the sample rate of the audio frames). Both are in \`src/shared/live.ts\`.
  Another organisation's call, or one that has ended, answers 404.
`;
