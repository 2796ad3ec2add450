/**
 * The Settings page's sections, in order, and the anchors of the cards other pages link to
 * (`/settings#openai-key`), so a link lands on its card rather than at the top of a long page.
 */
export const SETTINGS_SECTIONS = [
  { id: "team", title: "Team" },
  { id: "connections", title: "Connections" },
  { id: "calling", title: "Calling" },
  { id: "developers", title: "Developers" },
  { id: "records", title: "Records" },
  { id: "account", title: "Your account" },
] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]["id"];

/** Cards with an anchor of their own: what the getting-started checklist and notices link to. */
export const SETTINGS_CARDS = {
  openaiKey: "openai-key",
  twilio: "twilio",
  reachability: "reachability",
  apiKeys: "api-keys",
  webhooks: "webhooks",
} as const;
export type SettingsCard = (typeof SETTINGS_CARDS)[keyof typeof SETTINGS_CARDS];

export const SETTINGS_TEXTS = {
  navigation: "Settings sections",
  /** Under a setting whose current value could not be read (its field stays disabled until it is). */
  loadFailed: "Couldn't load this setting.",
  tryAgain: "Try again",
};

/** The app path of a card or section on the Settings page. */
export const settingsPath = (anchor: SettingsCard | SettingsSection): string => `/settings#${anchor}`;
