import { AssistantsPage } from "@/features/assistants/assistants-page";
import { TestCallPanel } from "@/features/test-call/test-call-panel";

/**
 * Features never import each other (the linter holds it); the app composes them. The Assistants
 * page opens a test call through the panel it is handed here.
 */
export function AssistantsRoute() {
  return <AssistantsPage TestCallPanel={TestCallPanel} />;
}
