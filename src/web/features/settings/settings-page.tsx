import { ShieldCheck } from "lucide-react";
import type { ComponentType, ReactNode } from "react";
import { SETTINGS_CARDS, SETTINGS_SECTIONS, SETTINGS_TEXTS, type SettingsCard, type SettingsSection } from "@shared/settings";
import { useCan } from "@/lib/use-membership";
import { DeleteAccountCard } from "./delete-account-card";
import { DemoRequestsCard } from "./demo-requests-card";
import { ReachabilityCard } from "./reachability-card";
import { OpenAiKeyCard } from "./openai-key-card";
import { TwilioCredentialsCard } from "./twilio-credentials-card";
import { ProvidersCard } from "./providers-card";
import { RetentionCard } from "./retention-card";
import { WebhooksCard } from "./webhooks-card";
import { ApiKeysCard } from "./api-keys-card";
import { AuditLogCard } from "./audit-log-card";
import { CallSettingsCard } from "./call-settings-card";
import { DoNotCallCard } from "./do-not-call-card";
import { PasswordCard } from "./password-card";
import { ProfileCard } from "./profile-card";
import { useScrollToHash } from "./use-scroll-to-hash";

/**
 * The Team card comes from its own feature, handed in by app/settings-route.tsx. Cards a role
 * cannot use are left out (the server refuses them anyway: 403), and so is a section left empty.
 * Sections with in-page links rather than tabs: every card stays on the page, so a link to a card
 * (`/settings#twilio`) and the browser's find both reach it.
 */
export function SettingsPage({ TeamCard }: { TeamCard: ComponentType }) {
  const credentials = useCan("credentials");
  const apiKeys = useCan("apiKeys");
  const webhooks = useCan("webhooks");
  const settings = useCan("settings");
  const seesAuditLog = useCan("audit");
  useScrollToHash();

  const cards: Record<SettingsSection, ReactNode[]> = {
    team: [<TeamCard key="team" />],
    connections: [
      credentials && <Anchored key="openai" id={SETTINGS_CARDS.openaiKey}><OpenAiKeyCard /></Anchored>,
      credentials && <Anchored key="twilio" id={SETTINGS_CARDS.twilio}><TwilioCredentialsCard /></Anchored>,
      credentials && <ProvidersCard key="providers" />,
      <Anchored key="reachability" id={SETTINGS_CARDS.reachability}><ReachabilityCard /></Anchored>,
    ],
    calling: [settings && <CallSettingsCard key="calls" />, <DoNotCallCard key="dnc" />, settings && <RetentionCard key="retention" />],
    developers: [
      apiKeys && <Anchored key="api-keys" id={SETTINGS_CARDS.apiKeys}><ApiKeysCard /></Anchored>,
      webhooks && <Anchored key="webhooks" id={SETTINGS_CARDS.webhooks}><WebhooksCard /></Anchored>,
    ],
    records: [seesAuditLog && <AuditLogCard key="audit" />, <DemoRequestsCard key="demo" />],
    account: [<ProfileCard key="profile" />, <PasswordCard key="password" />, <DeleteAccountCard key="delete" />],
  };
  const sections = SETTINGS_SECTIONS.map((s) => ({ ...s, cards: cards[s.id].filter(Boolean) })).filter((s) => s.cards.length > 0);

  return (
    <section className="mx-auto grid max-w-5xl min-w-0 gap-6 lg:grid-cols-[11rem_minmax(0,1fr)]">
      <div className="min-w-0 space-y-1 lg:col-span-2">
        <h1 className="text-2xl font-semibold tracking-tight">Account Settings</h1>
        <p className="text-muted-foreground">Connect the services your assistants use. Credentials are stored securely, encrypted on the server.</p>
      </div>
      <nav aria-label={SETTINGS_TEXTS.navigation} className="min-w-0 lg:sticky lg:top-4 lg:self-start">
        <ul className="flex flex-wrap gap-2 lg:flex-col lg:gap-1">
          {sections.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`} className="block rounded-md border px-3 py-1.5 text-sm hover:bg-muted lg:border-0">
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="grid min-w-0 grid-cols-[minmax(0,1fr)] gap-10">
        <div className="flex gap-3 rounded-lg border bg-muted/40 p-4 text-sm">
          <ShieldCheck className="mt-0.5 size-5 shrink-0 text-primary" />
          <p>
            <span className="font-medium">Edge Function Secrets:</span> there are none to manage. Switchboard&apos;s own server uses your keys on
            your behalf — they never reach the browser once saved.
          </p>
        </div>
        {sections.map((s) => (
          <section key={s.id} id={s.id} aria-labelledby={`${s.id}-heading`} className="grid min-w-0 scroll-mt-4 grid-cols-[minmax(0,1fr)] gap-6">
            <h2 id={`${s.id}-heading`} className="text-lg font-semibold tracking-tight">
              {s.title}
            </h2>
            {s.cards}
          </section>
        ))}
      </div>
    </section>
  );
}

/** A card other pages link to: the anchor, with room above it when scrolled to. */
function Anchored({ id, children }: { id: SettingsCard; children: ReactNode }) {
  return (
    <div id={id} className="min-w-0 scroll-mt-4">
      {children}
    </div>
  );
}
