import { ShieldCheck } from "lucide-react";
import type { ComponentType } from "react";
import { useCan } from "@/lib/use-membership";
import { DeleteAccountCard } from "./delete-account-card";
import { DemoRequestsCard } from "./demo-requests-card";
import { ReachabilityCard } from "./reachability-card";
import { OpenAiKeyCard } from "./openai-key-card";
import { TwilioCredentialsCard } from "./twilio-credentials-card";
import { RetentionCard } from "./retention-card";
import { WebhooksCard } from "./webhooks-card";
import { ApiKeysCard } from "./api-keys-card";
import { AuditLogCard } from "./audit-log-card";
import { CallSettingsCard } from "./call-settings-card";
import { DoNotCallCard } from "./do-not-call-card";
import { PasswordCard } from "./password-card";
import { ProfileCard } from "./profile-card";

/**
 * The Team card comes from its own feature, handed in by app/settings-route.tsx. Cards a role
 * cannot use are left out (the server refuses them anyway: 403).
 */
export function SettingsPage({ TeamCard }: { TeamCard: ComponentType }) {
  const credentials = useCan("credentials");
  const apiKeys = useCan("apiKeys");
  const webhooks = useCan("webhooks");
  const settings = useCan("settings");
  const seesAuditLog = useCan("audit");
  return (
    <section className="mx-auto max-w-3xl space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight">Account Settings</h1>
        <p className="text-muted-foreground">Connect the services your assistants use. Credentials are stored securely, encrypted on the server.</p>
      </div>
      <div className="flex gap-3 rounded-lg border bg-muted/40 p-4 text-sm">
        <ShieldCheck className="mt-0.5 size-5 shrink-0 text-primary" />
        <p>
          <span className="font-medium">Edge Function Secrets:</span> there are none to manage. Switchboard&apos;s own server uses your keys on
          your behalf — they never reach the browser once saved.
        </p>
      </div>
      <TeamCard />
      {credentials && <OpenAiKeyCard />}
      {credentials && <TwilioCredentialsCard />}
      <ReachabilityCard />
      {settings && <RetentionCard />}
      {settings && <CallSettingsCard />}
      <DoNotCallCard />
      {apiKeys && <ApiKeysCard />}
      {webhooks && <WebhooksCard />}
      <DemoRequestsCard />
      {seesAuditLog && <AuditLogCard />}
      {/* Account cards: each one its own component, so other cards slot in without touching them. */}
      <ProfileCard />
      <PasswordCard />
      <DeleteAccountCard />
    </section>
  );
}
