import { SettingsPage } from "@/features/settings/settings-page";
import { TeamCard } from "@/features/team/team-card";

/** Features never import each other: the Settings page shows the Team card it is handed here. */
export function SettingsRoute() {
  return <SettingsPage TeamCard={TeamCard} />;
}
