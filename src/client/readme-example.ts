// The README's example of the typed client, kept here so `tsc -b` checks it against the API's
// types (src/client/readme-example.test.ts holds the README to this text).
import { Webhook } from "standardwebhooks";
import { createSwitchboardClient } from "./api-client.ts";

export async function example(baseUrl: string, apiKey: string, phoneNumberId: string) {
  const api = createSwitchboardClient({ baseUrl, apiKey });

  // Create an assistant.
  const { data: assistant, error } = await api.POST("/api/assistants", { body: { name: "Reception", first_message: "Hello, how can I help?" } });
  if (error) throw new Error(error.error.message);

  // Place an outbound call; the Idempotency-Key makes a retry place it once.
  const { data: call } = await api.POST("/api/calls/outbound", {
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { assistant_id: assistant.id, phone_number_id: phoneNumberId, to: "+14155550123" },
  });
  console.log(call?.id, call?.status);

  // Page through calls: `next_cursor` is null on the last page.
  let cursor: string | undefined;
  do {
    const { data: page } = await api.GET("/api/calls", { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } });
    for (const c of page?.data ?? []) console.log(c.id, c.status, c.start_time);
    cursor = page?.next_cursor ?? undefined;
  } while (cursor);
}

// Verify a webhook delivery (Standard Webhooks): the raw body, the headers, the endpoint's secret.
export function verifyDelivery(rawBody: string, headers: Record<string, string>, secret: string) {
  return new Webhook(secret).verify(rawBody, headers) as { type: string; timestamp: string; data: unknown };
}
